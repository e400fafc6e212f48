import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { afterStart } from '../../server/compose.js';
import { SAMPLE_AGENT_NAME } from '../../server/modules/agents/sample-agent.js';
import { passwordWeakness } from '../../server/modules/auth/password-strength.js';
import { verifyPassword } from '../../server/modules/auth/passwords.js';
import { insertCalls, withCallIndexesDeferred } from '../../server/modules/calls/call.repo.js';
import { createDemoWorkspace, DEMO, DEMO_EMAIL, demoEnabled, generatedPassword } from '../../server/modules/company/workspace.js';
import { parseEnv } from '../../server/platform/env.js';
import type { CallDetail } from '../../src/api/contract/call-runtime.js';
import type { FreeNumber, PhoneNumber } from '../../src/api/contract/phone.js';
import { logIn, signUp } from './auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from './helpers.js';
import { api } from './phone-helpers.js';

/** Runs createDemoWorkspace, capturing what it prints. */
async function demo(t: TestApp) {
  const printed: string[] = [];
  const created = await createDemoWorkspace(t.deps.db.db, {
    now: t.clock.now(),
    print: (s) => printed.push(s),
    events: t.deps.events,
    logger: t.deps.logger,
    dataDir: t.deps.config.dataDir,
  });
  return { created, printed };
}

const companies = async (t: TestApp) =>
  Number(
    (
      await t.deps.db.db
        .selectFrom('companies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function callIndexes(t: TestApp): Promise<string[]> {
  const { rows } = await (t.deps.db.kind === 'postgres'
    ? sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'calls'`
    : sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'calls'`
  ).execute(t.deps.db.db);
  return rows.map((r) => r.name).sort();
}

describeEachDb('demo workspace and seeding', (kind) => {
  const t = useTestApp(kind);

  it('creates the demo workspace on an empty database and prints its password once', async () => {
    const { created, printed } = await demo(t());
    expect(created).toBe(true);
    expect(printed).toHaveLength(1);
    const password = /password (\S+)/.exec(printed[0]!)?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    // the password signs in, and is stored only as a hash, never logged
    const account = await t()
      .deps.db.db.selectFrom('accounts')
      .selectAll()
      .where('email', '=', DEMO_EMAIL)
      .executeTakeFirstOrThrow();
    expect(account.password_hash).not.toContain(password);
    expect(await verifyPassword(account.password_hash, password!)).toBe(true);
    // the strength check new passwords pass holds for generated ones: this one and fifty more
    expect(await passwordWeakness(password!, { name: account.name, email: DEMO_EMAIL })).toBeNull();
    const more = await Promise.all(
      Array.from({ length: 50 }, () => passwordWeakness(generatedPassword(), { email: DEMO_EMAIL })),
    );
    expect(more.filter((w) => w !== null)).toEqual([]);
    expect(LOG_LINES.some((l) => l.includes(password!))).toBe(false);
    const { res, body } = await logIn(t(), DEMO_EMAIL, password!);
    expect(res.status).toBe(200);
    const token = body.token;

    const agents = (await api(t(), 'GET', '/agent', { token })).body.data.agents;
    expect(agents.map((a: { agent_name: string }) => a.agent_name)).toEqual([SAMPLE_AGENT_NAME]);
    const mine = (await api(t(), 'GET', '/phone/assigned', { token })).body.data.numbers as PhoneNumber[];
    expect(mine).toHaveLength(DEMO.assignedNumbers);
    expect(mine.map((n) => [n.nickname, n.inbound_agent_id, n.outbound_agent_id]).sort()).toEqual([
      ['Front desk', agents[0]._id, null],
      ['Reminders', null, agents[0]._id],
    ]);
    const pool = await api(t(), 'GET', '/phone/free?limit=100', { token });
    expect(pool.body.data.total).toBe(DEMO.freeNumbers);
    expect((pool.body.data.numbers as FreeNumber[]).every((n) => /^\+1\d{10}$/.test(n.phone) && !n.requested)).toBe(true);
    const calls = await api(t(), 'GET', '/call/', { token });
    expect(calls.body.data.pagination.totalCalls).toBe(DEMO.calls);
    // the calls use the demo's own numbers and its agent
    const line = await api(t(), 'GET', `/call/?phoneNumber=${encodeURIComponent(mine[0]!.phone)}&limit=100`, { token });
    expect(line.body.data.pagination.totalCalls).toBeGreaterThan(0);
    expect(line.body.data.calls.every((c: { agentId: string }) => c.agentId === agents[0]._id)).toBe(true);

    // never twice
    expect((await demo(t())).created).toBe(false);
    expect(await companies(t())).toBe(1);
  });

  it("the demo's calls read like real calls: words fitting the outcome, latency, a cost breakdown adding up, analysis, agent name, recordings", async () => {
    const { printed } = await demo(t());
    const password = /password (\S+)/.exec(printed[0]!)?.[1] as string;
    const token = (await logIn(t(), DEMO_EMAIL, password)).body.token as string;
    const list = (await api(t(), 'GET', '/call/?limit=100', { token })).body.data.calls as {
      _id: string;
      status: string;
      disconnectionReason: string;
      cost: number;
    }[];
    const details = new Map<string, CallDetail>();
    for (const c of list) details.set(c._id, (await api(t(), 'GET', `/call/${c._id}`, { token })).body.data as CallDetail);
    const all = [...details.values()];
    // every call (but one still on the line) names its agent
    expect(all.filter((d) => d.status !== 'ongoing').every((d) => d.agent_name === SAMPLE_AGENT_NAME)).toBe(true);
    // a connected call that reached its goal: a conversation, its latency, its analysis, a breakdown that adds up
    const booked = all.find(
      (d) => d.call_successful && d.disconnection_reason !== 'voicemail_reached' && d.transcript.length > 3,
    );
    expect(booked).toBeDefined();
    const b = booked as CallDetail;
    expect(b.transcript.map((turn) => turn.role)).toContain('user');
    expect(
      b.transcript.every(
        (turn, i) => turn.end_ms > turn.start_ms && (i === 0 || turn.start_ms >= (b.transcript[i - 1]?.end_ms ?? 0)),
      ),
    ).toBe(true);
    expect(b.transcript.at(-1)?.end_ms).toBeLessThanOrEqual(b.duration * 1000);
    expect(b.latency.length).toBeGreaterThan(0);
    for (const l of b.latency) expect(l.stt_ms + l.wait_ms + l.llm_ms + l.tts_ms).toBe(l.total_ms);
    expect(b.analysis).toMatchObject({ status: 'done', successful: true });
    expect(b.analysis?.summary?.length).toBeGreaterThan(20);
    for (const d of all) {
      if (d.status === 'ongoing') continue;
      const parts = d.cost.stt + d.cost.llm + d.cost.tts + d.cost.telephony;
      expect(Math.abs(parts - d.cost.total)).toBeLessThan(0.00011);
      // the list shows the same total as the detail
      expect(list.find((c) => c._id === d._id)?.cost).toBeCloseTo(d.cost.total, 4);
    }
    // a voicemail: only the agent spoke; a call nobody answered: no words at all
    const voicemail = all.find((d) => d.disconnection_reason === 'voicemail_reached');
    if (voicemail) expect(new Set(voicemail.transcript.map((turn) => turn.role))).toEqual(new Set(['agent']));
    for (const d of all.filter((x) => ['dial_no_answer', 'dial_busy', 'dial_failed'].includes(x.disconnection_reason)))
      expect(d.transcript).toEqual([]);
    // the newest connected calls have a recording: a stereo WAV (synthesised tones)
    const recorded = all.filter((d) => d.recording_url);
    expect(recorded.length).toBe(DEMO.recordings);
    const wav = await t().req('GET', (recorded[0] as CallDetail).recording_url as string);
    expect(wav.status).toBe(200);
    const bytes = Buffer.from(await wav.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.readUInt16LE(22)).toBe(2);
    expect(bytes.length).toBeGreaterThan(44 + 8000 * 4);
  });

  it('leaves a database that already has a company alone', async () => {
    await signUp(t());
    const { created, printed } = await demo(t());
    expect(created).toBe(false);
    expect(printed).toEqual([]);
    expect(
      await t().deps.db.db.selectFrom('accounts').select('id').where('email', '=', DEMO_EMAIL).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('runs at start-up unless DEMO=off (and with DATABASE_URL only when DEMO=on)', async () => {
    const printed: string[] = [];
    const start = (env: Record<string, string>) => afterStart(t().deps, parseEnv(env), (s) => printed.push(s));
    await (await start({ DEMO: 'off' })).stop();
    await (await start({ DATABASE_URL: 'postgres://db/parley' })).stop();
    expect(await companies(t())).toBe(0);
    await (await start({ DATABASE_URL: 'postgres://db/parley', DEMO: 'on' })).stop();
    expect(await companies(t())).toBe(1);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain(DEMO_EMAIL);
  });

  it('rebuilds the call indexes after a bulk load, also when the load fails', async () => {
    const before = await callIndexes(t());
    expect(before.length).toBeGreaterThanOrEqual(7);
    const { companyId } = await signUp(t());
    const row = (id: string) => ({
      id,
      company_id: companyId,
      agent_id: null,
      time: '2026-11-20T10:00:00.000Z',
      from_number: '+14155550100',
      to_number: '+13125550100',
      phone_number: '+13125550100',
      duration: 30,
      type: 'inbound',
      cost: 0.04,
      disconnection_reason: 'user_hangup',
      status: 'ended',
      call_successful: 1,
    });
    const seen: number[] = [];
    await withCallIndexesDeferred(
      t().deps.db.db,
      async () => {
        // only the primary key is left while loading
        expect((await callIndexes(t())).length).toBe(1);
        await insertCalls(t().deps.db.db, [row('1'.repeat(24))]);
      },
      (n) => seen.push(n),
    );
    expect(seen).toEqual([before.length - 1]);
    expect(await callIndexes(t())).toEqual(before);
    await expect(
      withCallIndexesDeferred(t().deps.db.db, async () => {
        throw new Error('load failed');
      }),
    ).rejects.toThrow('load failed');
    expect(await callIndexes(t())).toEqual(before);
  });
});

it('enables the demo by default on SQLite only', () => {
  expect(demoEnabled({})).toBe(true);
  expect(demoEnabled({ DEMO: 'off' })).toBe(false);
  expect(demoEnabled({ DATABASE_URL: 'postgres://x/y' })).toBe(false);
  expect(demoEnabled({ DATABASE_URL: 'postgres://x/y', DEMO: 'on' })).toBe(true);
});
