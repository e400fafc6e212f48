import { describe, expect, it } from 'vitest';
import type { CallRow } from '../../server/modules/calls/call.repo.js';
import { type CallLine, generateCalls, MAX_CALL_SECONDS, seededRng } from '../../server/modules/company/call-generator.js';
import { DISCONNECTION_REASONS } from '../../src/api/contract/call.js';
import { CALL_STATUSES } from '../../src/api/contract/call-values.js';
import { agentCostPerMinute } from '../../src/api/contract/models.js';

const LINES: CallLine[] = [
  { phone: '+13125550100', agentId: 'agent-a', costPerMinute: agentCostPerMinute('gpt-4o') },
  { phone: '+13125550101', agentId: 'agent-b', costPerMinute: agentCostPerMinute('gpt-4o-mini') },
];
const END = new Date('2026-11-22T10:30:00.000Z');
const START = new Date(END.getTime() - 56 * 86_400_000);

function generate(count: number, seed = 1): CallRow[] {
  const out: CallRow[] = [];
  for (const day of generateCalls({ companyId: 'c1', lines: LINES, count, start: START, end: END, rng: seededRng(seed) }))
    out.push(...day);
  return out;
}
const share = (rows: CallRow[], pred: (r: CallRow) => boolean) => rows.filter(pred).length / rows.length;

describe('call generator', () => {
  const rows = generate(20_000);

  it('makes exactly the calls asked for, in time order, inside the period, repeatably', () => {
    expect(rows).toHaveLength(20_000);
    expect(rows.filter((r, i) => i > 0 && r.time < rows[i - 1]!.time)).toEqual([]);
    expect(rows[0]!.time >= START.toISOString()).toBe(true);
    expect(rows.at(-1)!.time < END.toISOString()).toBe(true);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(generate(500, 7).map((r) => [r.time, r.status, r.duration])).toEqual(
      generate(500, 7).map((r) => [r.time, r.status, r.duration]),
    );
    expect(generate(0)).toEqual([]);
    expect(() =>
      generateCalls({ companyId: 'c', lines: [], count: 1, start: START, end: END, rng: Math.random }).next(),
    ).toThrow();
  });

  it('follows the day: busy office hours, quiet nights, quiet weekends', () => {
    const hour = (r: CallRow) => Number(r.time.slice(11, 13));
    expect(share(rows, (r) => hour(r) >= 8 && hour(r) < 18)).toBeGreaterThan(0.75);
    expect(share(rows, (r) => hour(r) < 6)).toBeLessThan(0.03);
    const weekday = (r: CallRow) => new Date(r.time).getUTCDay();
    const perDay = (d: number) => rows.filter((r) => weekday(r) === d).length;
    expect(perDay(1)).toBeGreaterThan(2.5 * perDay(0));
    expect(perDay(3)).toBeGreaterThan(2 * perDay(6));
  });

  it('reports real statuses and reasons with believable shares', () => {
    const statuses: readonly string[] = CALL_STATUSES;
    const reasons: readonly string[] = DISCONNECTION_REASONS;
    const odd = rows.filter(
      (r) =>
        !statuses.includes(r.status) ||
        (r.status === 'ongoing' ? r.disconnection_reason !== '' : !reasons.includes(r.disconnection_reason)) ||
        (r.type !== 'inbound' && r.type !== 'outbound'),
    );
    expect(odd).toEqual([]);
    expect(share(rows, (r) => r.type === 'inbound')).toBeCloseTo(0.62, 1);
    const outbound = rows.filter((r) => r.type === 'outbound');
    expect(share(outbound, (r) => r.status === 'no-answer')).toBeCloseTo(0.18, 1);
    expect(share(rows, (r) => r.status === 'completed' || r.status === 'ended')).toBeGreaterThan(0.75);
    // inbound calls reach the company's line, outbound ones leave from it
    expect(rows.filter((r) => (r.type === 'inbound' ? r.to_number : r.from_number) !== r.phone_number)).toEqual([]);
    // only connected calls may succeed
    expect(rows.filter((r) => r.call_successful && r.status !== 'completed')).toEqual([]);
  });

  it('gives durations by outcome and costs from the line agent price', () => {
    const wrong = rows.filter((r) => {
      const line = LINES.find((l) => l.phone === r.phone_number)!;
      return (
        r.duration < 0 ||
        r.duration > MAX_CALL_SECONDS ||
        (['no-answer', 'busy', 'failed'].includes(r.status) && r.duration !== 0) ||
        (r.disconnection_reason === 'max_duration_reached' && r.duration !== MAX_CALL_SECONDS) ||
        r.agent_id !== line.agentId ||
        // rounded to 1/10,000 USD
        Math.abs(r.cost - (r.duration / 60) * line.costPerMinute) > 0.00005 + 1e-12
      );
    });
    expect(wrong).toEqual([]);
    expect(rows.some((r) => r.disconnection_reason === 'max_duration_reached')).toBe(true);
    const connected = rows
      .filter((r) => r.status === 'completed' || r.status === 'ended')
      .map((r) => r.duration)
      .sort((a, b) => a - b);
    const median = connected[Math.floor(connected.length / 2)]!;
    expect(median).toBeGreaterThan(90);
    expect(median).toBeLessThan(240);
  });
});
