import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DeepgramFake } from '../../fakes/deepgram.js';
import { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import { startFakeOpenAi } from '../../fakes/openai.js';
import { TwilioFake } from '../../fakes/twilio.js';
import { DB_KINDS } from '../helpers.js';
import { numberBody } from '../phone-helpers.js';
import {
  type Body,
  call,
  freePort,
  killed,
  killServersAfterEach,
  register,
  type Server,
  serverPlace,
  startServer,
  stopped,
} from '../server-process.js';

/**
 * Batch calls at the level of processes ("Tests and proof"): real Parley servers (server/main.ts
 * as `npm start` runs it) dial a batch through the fake Twilio, which logs every `Calls.json` request by its
 * To number. A server killed with SIGKILL in the middle of a batch and started again on the same database
 * dials nobody twice and finishes the batch; two servers sharing one PostgreSQL database share a batch
 * without a double dial and never together exceed the company's concurrency limit.
 *
 * The dispatcher runs at its production pace (1 new call per second per company, a tick a second): the
 * tests use no knob of their own.
 */

killServersAfterEach();

const FROM = '+14155550100';
/** how long an answered call lasts (the callee hangs up) */
const CALL_MS = 2500;

/** The providers' fakes a phone call needs: the carrier and the agent's speech, LLM and voice. */
async function startFakes() {
  const [twilio, deepgram, openai, eleven] = await Promise.all([
    TwilioFake.start(),
    DeepgramFake.start(),
    startFakeOpenAi(),
    ElevenLabsFake.start(),
  ]);
  twilio.calleeHangsUpAfterMs = CALL_MS;
  return {
    twilio,
    deepgram,
    openai,
    eleven,
    env: {
      TWILIO_API_URL: twilio.url,
      DEEPGRAM_API_URL: deepgram.url,
      OPENAI_BASE_URL: openai.url,
      ELEVENLABS_API_URL: eleven.url,
    },
    close: async () => {
      await twilio.close();
      await Promise.all([deepgram.close(), openai.close(), eleven.close()]);
    },
  };
}
type Fakes = Awaited<ReturnType<typeof startFakes>>;

/** A server on a port it knows in advance, so that PUBLIC_URL (where Twilio calls back) is its own. */
async function startPhoneServer(env: Record<string, string>) {
  const port = await freePort();
  return startServer({ ...env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
}

async function ok(res: Promise<{ status: number; body: Body }>, status = [200, 201]) {
  const r = await res;
  expect(status, JSON.stringify(r.body)).toContain(r.status);
  return r.body;
}

/**
 * A company as a user sets it up on `server`: speech, LLM, voice and Twilio connected (Providers), a number
 * with the sample agent as its outbound agent, the concurrency limit (Billing > Limits), and a batch from
 * that number to `phones` (CSV upload) sent now. Answers the batch's id and the user's token.
 */
async function sendBatch(server: Server, fakes: Fakes, phones: string[], concurrencyLimit: number) {
  const base = server.url;
  const token = await register(base);
  const connect = (name: string, keys: { name: string; value: string }[]) =>
    ok(call(base, 'POST', '/provider/values', token, { name, keys }));
  await connect('deepgram', [{ name: 'API Key', value: fakes.deepgram.key }]);
  await connect('openai', [{ name: 'API Key', value: fakes.openai.apiKey }]);
  await connect('elevenlabs', [{ name: 'API Key', value: fakes.eleven.key }]);
  await connect('twilio', [
    { name: 'Account SID', value: fakes.twilio.accountSid },
    { name: 'Auth Token', value: fakes.twilio.authToken },
  ]);
  const agents = await ok(call(base, 'GET', '/agent?page=1&limit=10', token));
  const agentId = agents.data.agents[0]._id as string;
  await ok(call(base, 'POST', '/number/create', token, numberBody(FROM, { outbound_agent_id: agentId })));
  await ok(call(base, 'PUT', '/billing/limits', token, { concurrencyLimit, monthlySpendLimit: 10_000 }));
  const created = await ok(
    call(
      base,
      'POST',
      '/batch-call',
      token,
      { name: 'Reminders', fromNumber: FROM, sendMode: 'now' },
      `b-${randomBytes(4).toString('hex')}`,
    ),
  );
  const batchId = created.batch._id as string;
  const listed = await fetch(`${base}/api/v1/batch-call/${batchId}/recipients`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv' },
    body: ['phone_number,name', ...phones.map((p, i) => `${p},Person ${i + 1}`)].join('\n'),
  });
  expect(listed.status, await listed.clone().text()).toBe(200);
  await ok(call(base, 'POST', `/batch-call/${batchId}/send`, token));
  return { batchId, token };
}

const phonesOf = (n: number, start: number) =>
  Array.from({ length: n }, (_, i) => `+1415555${String(start + i).padStart(4, '0')}`);

/** How many times each number was dialled (the fake's log of Calls.json creates). */
function dialsByNumber(twilio: TwilioFake) {
  const dials = new Map<string, number>();
  for (const c of twilio.calls) if (c.direction === 'outbound-api') dials.set(c.to, (dials.get(c.to) ?? 0) + 1);
  return dials;
}

/** Waits (bounded) until `check` holds; the message says what never happened. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(DB_KINDS)('batch calls across server processes [%s]', (kind) => {
  it('SIGKILL of the server mid-batch: restarted on the same database, it finishes the batch and dials nobody twice', async () => {
    const place = await serverPlace(kind);
    const fakes = await startFakes();
    try {
      const env = { ...place.env, ...fakes.env };
      const first = await startPhoneServer(env);
      const phones = phonesOf(20, 100);
      const { batchId, token } = await sendBatch(first, fakes, phones, 3);
      // killed once some recipients were dialled, while calls are live
      await until(() => fakes.twilio.calls.length >= 6 && fakes.twilio.active > 0, '6 dials');
      expect(await killed(first.proc)).toBe('SIGKILL');
      const beforeKill = fakes.twilio.calls.length;
      expect(beforeKill).toBeLessThan(phones.length);

      // Twenty minutes pass (as the dead server's calls and leases would age): its live calls stopped
      // beating, the calls it created are as old as the sweeper waits for, and a lease without a call ran out.
      const old = new Date(Date.now() - 30 * 60_000).toISOString();
      await place.query("update call_sessions set heartbeat_at = $1 where status = 'ongoing'", [old]);
      await place.query(
        "update call_sessions set created_at = $1 where status = 'registered' and type in ('inbound', 'outbound')",
        [old],
      );
      await place.query("update batch_recipients set lease_until = $1 where state = 'calling' and call_id is null", [old]);

      const second = await startPhoneServer(env);
      await until(async () => {
        const b = await call(second.url, 'GET', `/batch-call/${batchId}`, token);
        return b.body.batch?.status === 'completed';
      }, 'the batch to complete');
      expect(fakes.twilio.calls.length).toBeGreaterThan(beforeKill);

      // nobody dialled twice
      const dials = dialsByNumber(fakes.twilio);
      expect([...dials.entries()].filter(([, n]) => n > 1)).toEqual([]);
      // everyone dialled, but for at most the one recipient whose call was being placed at the kill: its call
      // was stored before the carrier was asked (so a restart never dials it again), and it ends as failed
      const undialled = phones.filter((p) => !dials.has(p));
      expect(undialled.length).toBeLessThanOrEqual(1);
      const rows = await place.query<{ phone_number: string; state: string; attempts: number }>(
        'select phone_number, state, attempts from batch_recipients where batch_id = $1 order by row_number',
        [batchId],
      );
      expect(rows.map((r) => r.phone_number)).toEqual(phones);
      for (const r of rows) {
        expect(['completed', 'failed'], r.phone_number).toContain(r.state);
        expect(Number(r.attempts), r.phone_number).toBe(1);
      }
      for (const p of undialled) expect(rows.find((r) => r.phone_number === p)?.state).toBe('failed');
      // the calls cut by the kill are the only ones that did not complete
      expect(rows.filter((r) => r.state === 'failed').length).toBeLessThanOrEqual(3 + 1);
      expect(fakes.twilio.maxActive).toBeLessThanOrEqual(3);
      expect(fakes.twilio.refusals).toEqual([]);
      await stopped(second.proc);
    } finally {
      await fakes.close();
      await place.remove();
      fs.rmSync(`${place.dataDir}-b`, { recursive: true, force: true });
    }
  }, 90_000);
});

describe.runIf(DB_KINDS.includes('postgres'))('two servers on one PostgreSQL database', () => {
  it('share a batch: nobody dialled twice, both servers dial, the concurrency limit holds across them', async () => {
    const place = await serverPlace('postgres');
    const fakes = await startFakes();
    try {
      // two machines: their own DATA_DIR, the same keys (MASTER_KEY decrypts the company's provider keys)
      const env = {
        ...place.env,
        ...fakes.env,
        MASTER_KEY: randomBytes(32).toString('hex'),
        JWT_SECRET: randomBytes(32).toString('hex'),
      };
      const a = await startPhoneServer(env);
      const b = await startPhoneServer({ ...env, DATA_DIR: `${place.dataDir}-b` });
      const limit = 4;
      const phones = phonesOf(30, 300);
      const { batchId, token } = await sendBatch(a, fakes, phones, limit);
      // the fake's live calls, sampled while the batch runs
      let sampledMax = 0;
      const sampler = setInterval(() => {
        sampledMax = Math.max(sampledMax, fakes.twilio.active);
      }, 5);
      try {
        await until(async () => {
          const res = await call(b.url, 'GET', `/batch-call/${batchId}`, token);
          return res.body.batch?.status === 'completed';
        }, 'the batch to complete');
      } finally {
        clearInterval(sampler);
      }
      const dials = dialsByNumber(fakes.twilio);
      expect([...dials.entries()].filter(([, n]) => n > 1)).toEqual([]);
      expect([...dials.keys()].sort()).toEqual([...phones].sort());
      // which server placed each call: the status callback goes to the server's own PUBLIC_URL
      const byServer = (s: Server) => fakes.twilio.calls.filter((c) => c.statusCallback?.startsWith(`${s.url}/`)).length;
      expect(byServer(a) + byServer(b)).toBe(phones.length);
      expect(byServer(a)).toBeGreaterThan(0);
      expect(byServer(b)).toBeGreaterThan(0);
      expect(fakes.twilio.maxActive).toBeLessThanOrEqual(limit);
      expect(sampledMax).toBeLessThanOrEqual(limit);
      expect(sampledMax).toBeGreaterThan(1);
      const rows = await place.query<{ state: string }>('select state from batch_recipients where batch_id = $1', [batchId]);
      expect(rows.map((r) => r.state)).toEqual(phones.map(() => 'completed'));
      await Promise.all([stopped(a.proc), stopped(b.proc)]);
    } finally {
      await fakes.close();
      await place.remove();
      fs.rmSync(`${place.dataDir}-b`, { recursive: true, force: true });
    }
  }, 90_000);
});
