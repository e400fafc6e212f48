import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TranscriptTurn } from '@contract/call-runtime.js';
import { agentCostPerMinute } from '@contract/models.js';
import { areaCodeOf, type PhoneProvider } from '@contract/phone.js';
import type { Insertable, Kysely } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import type { CallAnalysesTable, CallSessionsTable, DB } from '../../platform/db/schema.js';
import type { Env } from '../../platform/env.js';
import type { AppEventBus } from '../../platform/events.js';
import type { Logger } from '../../platform/log/logger.js';
import { hashPassword, insertCompanyWithAccount } from '../auth/index.js';
import { type CallRow, insertCalls, recordingsDir, storedCallCount, withCallIndexesDeferred } from '../calls/index.js';
import { insertNumberRows, poolNumberRow } from '../numbers/index.js';
import { AREA_CODES, type CallLine, fictionalNumber, generateCalls, type Rng, TOLL_FREE_CODES } from './call-generator.js';
import { demoConversation, demoRecording } from './demo-conversations.js';
import {
  accountOfEmail,
  anyCompanyExists,
  companyAgentModels,
  companyNumberAgents,
  insertGeneratedConversations,
  setGeneratedRecording,
  setNumberRoles,
  someAgentId,
  takenPhoneNumbers,
} from './workspace.repo.js';

/**
 * Workspaces with realistic data: used by `npm run seed` (server/cli/seed.ts) and by the demo workspace
 * created on the first start (createDemoWorkspace).
 */

export interface Workspace {
  companyId: string;
  accountId: string;
  email: string;
  /** the account was created now; `password` is its generated password (shown once, never stored) */
  created: boolean;
  password?: string;
}

/** A password for a generated account: 16 URL-safe characters (96 random bits). */
export const generatedPassword = () => randomBytes(12).toString('base64url');

/**
 * The company of the account `email`, created (with a generated password) when there is none; `events`
 * carries `company.created` to its handlers (the sample agent: server/compose.ts subscribes them).
 */
export async function ensureWorkspace(
  db: Kysely<DB>,
  p: { email: string; name: string; companyName: string; now: Date; events: AppEventBus },
): Promise<Workspace> {
  const email = p.email.toLowerCase();
  const existing = await accountOfEmail(db, email);
  if (existing) return { companyId: existing.company_id, accountId: existing.id, email, created: false };
  const password = generatedPassword();
  const passwordHash = await hashPassword(password);
  const companyId = newId(p.now);
  const accountId = newId(p.now);
  await db.transaction().execute((trx) =>
    insertCompanyWithAccount(trx, p.events, {
      companyId,
      accountId,
      companyName: p.companyName,
      name: p.name,
      email,
      passwordHash,
      now: p.now,
    }),
  );
  return { companyId, accountId, email, created: true, password };
}

/**
 * Adds `count` new numbers to the pool (fictional +1 AAA 555 XXXX numbers, one in ten toll-free, 70%
 * Twilio), free, or assigned to `owner` when given. Answers their ids and numbers.
 */
export async function addPoolNumbers(
  db: Kysely<DB>,
  p: { count: number; now: Date; rng: Rng; owner?: { companyId: string; accountId: string } },
): Promise<{ id: string; phone: string }[]> {
  const added: { id: string; phone: string }[] = [];
  for (let attempt = 0; added.length < p.count && attempt < 50; attempt++) {
    const wanted = new Map<string, ReturnType<typeof poolNumberRow>>();
    while (wanted.size < (p.count - added.length) * 2) {
      const tollFree = p.rng() < 0.1;
      const codes = tollFree ? TOLL_FREE_CODES : AREA_CODES;
      const phone = fictionalNumber(codes[Math.floor(p.rng() * codes.length)]!, Math.floor(p.rng() * 10_000));
      const provider: PhoneProvider = p.rng() < 0.7 ? 'twilio' : 'plivo';
      wanted.set(
        phone,
        poolNumberRow({ phone, provider, type: tollFree ? 'toll-free' : 'local', areaCode: areaCodeOf(phone), now: p.now }),
      );
    }
    const taken = await takenPhoneNumbers(db, [...wanted.keys()]);
    const rows = [...wanted.values()].filter((r) => !taken.has(r.phone_number)).slice(0, p.count - added.length);
    if (p.owner) {
      for (const r of rows) {
        r.company_id = p.owner.companyId;
        r.account_id = p.owner.accountId;
        r.assigned_at = p.now.toISOString();
      }
    }
    await insertNumberRows(db, rows);
    added.push(...rows.map((r) => ({ id: r.id, phone: r.phone_number })));
  }
  return added;
}

/**
 * The company's numbers as call lines: each with its agent (inbound, else outbound, else the company's
 * first agent) and that agent's price per minute.
 */
export async function companyLines(db: Kysely<DB>, companyId: string): Promise<CallLine[]> {
  const [numbers, agents] = await Promise.all([companyNumberAgents(db, companyId), companyAgentModels(db, companyId)]);
  const model = new Map(agents.map((a) => [a.id, a.llm_model]));
  return numbers.map((n) => {
    const agentId = n.inbound_agent_id ?? n.outbound_agent_id ?? agents[0]?.id ?? null;
    return { phone: n.phone_number, agentId, costPerMinute: agentCostPerMinute((agentId && model.get(agentId)) || '') };
  });
}

/** From this many calls on, seedCalls rebuilds the call indexes after the load instead of during it. */
export const BULK_CALLS = 100_000;

/**
 * Generates `count` calls of the company over the `days` before `now` (see call-generator.ts) and
 * stores them in batches of `batchSize`, one transaction each, reporting progress after each batch.
 * Answers how many calls were stored.
 */
export async function seedCalls(
  db: Kysely<DB>,
  p: {
    companyId: string;
    count: number;
    days: number;
    now: Date;
    rng: Rng;
    batchSize?: number;
    onProgress?: (done: number, total: number) => void;
    /** asked between batches: true stops the seeding there (the calls stored so far stay) */
    shouldStop?: () => boolean;
    /** told when the indexes are being rebuilt after a bulk load (it takes a while) */
    onRebuild?: (indexes: number) => void;
    /**
     * what the calls said, too (demo-conversations.ts): transcripts, latency, usage, analyses, and a
     * recording of the newest `recordings` connected calls in `dataDir` (default: none)
     */
    conversations?: { dataDir?: string; recordings?: number };
  },
): Promise<number> {
  const lines = await companyLines(db, p.companyId);
  const agents = new Map((await companyAgentModels(db, p.companyId)).map((a) => [a.id, a]));
  const batchSize = p.batchSize ?? 10_000;
  const start = new Date(p.now.getTime() - p.days * 86_400_000);
  let buffer: CallRow[] = [];
  let done = 0;
  /** the newest calls with words, for their recordings */
  let newest: { id: string; transcript: TranscriptTurn[] }[] = [];
  const flush = async () => {
    const talked = p.conversations ? conversationsOf(p.companyId, buffer, agents) : undefined;
    await insertCalls(db, buffer);
    if (talked) {
      await insertGeneratedConversations(db, talked.sessions, talked.analyses);
      const keep = p.conversations?.recordings ?? 0;
      if (keep > 0) newest = [...newest, ...talked.spoken].slice(-keep);
    }
    done += buffer.length;
    buffer = [];
    p.onProgress?.(done, p.count);
  };
  const load = async () => {
    for (const day of generateCalls({ companyId: p.companyId, lines, count: p.count, start, end: p.now, rng: p.rng })) {
      for (const row of day) buffer.push(row);
      if (buffer.length >= batchSize) await flush();
      if (p.shouldStop?.()) return;
    }
    if (buffer.length > 0) await flush();
  };
  // a load at least as large as everything stored goes faster with the indexes rebuilt once at the end
  if (p.count >= BULK_CALLS && p.count >= (await storedCallCount(db))) await withCallIndexesDeferred(db, load, p.onRebuild);
  else await load();
  const recordings = p.conversations?.recordings ?? 0;
  if (p.conversations?.dataDir && recordings > 0) {
    const dir = recordingsDir(p.conversations.dataDir, p.companyId);
    await fs.mkdir(dir, { recursive: true });
    for (const call of newest) {
      const name = `${call.id}.wav`;
      await fs.writeFile(path.join(dir, name), demoRecording(call.transcript));
      await setGeneratedRecording(db, p.companyId, call.id, name);
    }
  }
  return done;
}

/**
 * The sessions (what the engine stores of a call) and analyses of generated calls; each call's cost becomes
 * its usage's total, so the detail's breakdown adds up. Calls still on the line get none.
 */
function conversationsOf(
  companyId: string,
  rows: CallRow[],
  agents: Map<string, { name: string; llm_model: string }>,
): {
  sessions: Insertable<CallSessionsTable>[];
  analyses: Insertable<CallAnalysesTable>[];
  spoken: { id: string; transcript: TranscriptTurn[] }[];
} {
  const sessions: Insertable<CallSessionsTable>[] = [];
  const analyses: Insertable<CallAnalysesTable>[] = [];
  const spoken: { id: string; transcript: TranscriptTurn[] }[] = [];
  for (const row of rows) {
    const agent = row.agent_id ? agents.get(row.agent_id) : undefined;
    const talk = demoConversation(row, agent?.llm_model || 'gpt-4o');
    if (!talk) continue;
    row.cost = talk.cost;
    const ended = new Date(Date.parse(row.time) + row.duration * 1000).toISOString();
    sessions.push({
      id: row.id,
      company_id: companyId,
      account_id: null,
      agent_id: row.agent_id,
      agent_name: agent?.name ?? '',
      agent: '{}',
      type: row.type,
      from_number: row.from_number,
      to_number: row.to_number,
      phone_number: row.phone_number,
      status: row.status === 'error' ? 'error' : 'ended',
      dynamic_variables: '{}',
      started_at: row.time,
      ended_at: ended,
      disconnection_reason: row.disconnection_reason,
      error_message: row.status === 'error' ? 'The call ended on a platform error.' : null,
      transcript: JSON.stringify(talk.transcript),
      latency: JSON.stringify(talk.latency),
      usage: JSON.stringify(talk.usage),
      cost: talk.cost,
      recording: null,
      token_hash: null,
      token_expires_at: null,
      server_id: null,
      heartbeat_at: null,
      created_at: row.time,
      updated_at: ended,
      provider: 'twilio',
      provider_call_id: null,
      provider_status: null,
      answered_by: null,
    });
    if (talk.analysis)
      analyses.push({
        call_id: row.id,
        company_id: companyId,
        status: 'done',
        attempts: 1,
        next_attempt_at: ended,
        lease_until: null,
        worker: null,
        result: JSON.stringify(talk.analysis),
        error: null,
        created_at: ended,
        updated_at: ended,
      });
    if (talk.transcript.length > 0) spoken.push({ id: row.id, transcript: talk.transcript });
  }
  return { sessions, analyses, spoken };
}

// ---------------------------------------------------------------------------------------------
// The demo workspace

export const DEMO_EMAIL = 'demo@parley.test';
export const DEMO = { freeNumbers: 30, assignedNumbers: 2, calls: 2000, days: 60, recordings: 5 } as const;

/** DEMO=on/off decides; unset = on with the embedded SQLite database, off with DATABASE_URL. */
export const demoEnabled = (env: Pick<Env, 'DEMO' | 'DATABASE_URL'>) => (env.DEMO ? env.DEMO === 'on' : !env.DATABASE_URL);

/**
 * On an empty database (no company yet), creates the demo workspace: the account demo@parley.test with
 * a generated password (printed once through `print`, never logged or stored in clear), its sample
 * agent, 2 numbers assigned to it (one answering inbound calls with the sample agent, one placing
 * outbound calls), 30 free numbers in the pool and 2,000 calls over the last 60 days. Answers whether
 * it did. Safe when several instances start at once: only one creates the account.
 */
export async function createDemoWorkspace(
  db: Kysely<DB>,
  p: { now: Date; print: (text: string) => void; events: AppEventBus; logger?: Logger; rng?: Rng; dataDir?: string },
): Promise<boolean> {
  if (await anyCompanyExists(db)) return false;
  const rng = p.rng ?? Math.random;
  let ws: Workspace;
  try {
    ws = await ensureWorkspace(db, {
      email: DEMO_EMAIL,
      name: 'Demo User',
      companyName: 'Parley Demo Clinic',
      now: p.now,
      events: p.events,
    });
  } catch (e) {
    // another instance created it a moment ago (unique email)
    if (await accountOfEmail(db, DEMO_EMAIL)) return false;
    throw e;
  }
  if (!ws.created) return false;
  const owner = { companyId: ws.companyId, accountId: ws.accountId };
  const numbers = await addPoolNumbers(db, { count: DEMO.assignedNumbers, now: p.now, rng, owner });
  const agent = await someAgentId(db, ws.companyId);
  // the sample agent answers the front desk and places the reminder calls
  const roles = [
    { nickname: 'Front desk', inbound_agent_id: agent },
    { nickname: 'Reminders', outbound_agent_id: agent },
  ];
  for (const [i, number] of numbers.entries()) await setNumberRoles(db, ws.companyId, number.id, roles[i % roles.length]!);
  await addPoolNumbers(db, { count: DEMO.freeNumbers, now: p.now, rng });
  await seedCalls(db, {
    companyId: ws.companyId,
    count: DEMO.calls,
    days: DEMO.days,
    now: p.now,
    rng,
    conversations: { ...(p.dataDir ? { dataDir: p.dataDir } : {}), recordings: DEMO.recordings },
  });
  p.logger?.info('demo workspace created', { email: DEMO_EMAIL, calls: DEMO.calls });
  p.print(
    `\n  Demo workspace created. Sign in as ${DEMO_EMAIL} with the password ${ws.password}\n  (shown only this once; set DEMO=off to start with an empty database)\n`,
  );
  return true;
}
