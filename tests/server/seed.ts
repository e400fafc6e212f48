/**
 * Rows the billing and batch suites need that no endpoint of theirs makes: numbers of the pool assigned
 * to a company (as a granted request leaves them) and call records (which only dialling produces). They go
 * through the numbers and calls repositories, the one write path of those tables.
 */

import { insertCalls as storeCalls } from '../../server/modules/calls/call.repo.js';
import { insertNumberRows, poolNumberRow } from '../../server/modules/numbers/number.repo.js';
import { newId } from '../../server/platform/crypto/ids.js';
import { areaCodeOf, type PhoneProvider } from '../../src/api/contract/phone.js';
import type { TestApp } from './helpers.js';

/** A number of the pool, assigned to `companyId` on `assignedAt` (null = left free). */
export async function insertNumber(
  t: TestApp,
  companyId: string | null,
  phone: string,
  opts: { assignedAt?: string; createdAt?: string; provider?: PhoneProvider } = {},
): Promise<string> {
  const created = opts.createdAt ?? '2026-01-01T00:00:00.000Z';
  const row = poolNumberRow({
    phone,
    provider: opts.provider ?? 'twilio',
    type: 'local',
    areaCode: areaCodeOf(phone),
    now: new Date(created),
  });
  row.company_id = companyId;
  row.assigned_at = companyId ? (opts.assignedAt ?? created) : null;
  await insertNumberRows(t.deps.db.db, [row]);
  return row.id;
}

export interface SeedCall {
  /** ISO-8601 UTC */
  time: string;
  /** seconds */
  duration: number;
  /** USD */
  cost: number;
  agentId?: string | null;
  /** the call's typical response latency (ms), for the analytics' latency histogram */
  latencyMs?: number;
}

/** Call records of `companyId` (outbound, ended, from +14155550100). */
export async function insertCalls(t: TestApp, companyId: string, calls: SeedCall[]): Promise<void> {
  await storeCalls(
    t.deps.db.db,
    calls.map((c) => ({
      id: newId(),
      company_id: companyId,
      agent_id: c.agentId ?? null,
      time: c.time,
      from_number: '+14155550100',
      to_number: '+14155550199',
      phone_number: '+14155550100',
      duration: c.duration,
      type: 'outbound',
      cost: c.cost,
      disconnection_reason: 'user_hangup',
      status: 'ended',
      call_successful: 1,
      latency_ms: c.latencyMs ?? null,
    })),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
export type Body = any;

/** A JSON call to /api/v1 with the status and parsed body. */
export async function call(
  t: TestApp,
  method: string,
  url: string,
  init: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await t.req(method, `/api/v1${url}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Connects the company's Twilio account through Providers (what sending a batch from a Twilio number needs). */
export async function connectTwilio(t: TestApp, token: string): Promise<void> {
  const res = await call(t, 'POST', '/provider/values', {
    token,
    body: {
      name: 'twilio',
      keys: [
        { name: 'Account SID', value: `AC${'0'.repeat(32)}` },
        { name: 'Auth Token', value: 'test-auth-token' },
      ],
    },
  });
  if (res.status !== 201) throw new Error(`connect twilio: ${res.status} ${JSON.stringify(res.body)}`);
}
