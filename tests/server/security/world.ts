import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { queueAnalysis } from '../../../server/modules/calls/analysis.js';
import { companyScopedTables } from '../../../server/modules/company/company.repo.js';
import { kbDir } from '../../../server/modules/knowledge/kb.repo.js';
import { createKnowledgeWorker } from '../../../server/modules/knowledge/kb.worker.js';
import { firstUseOfNonce } from '../../../server/modules/telephony/nonces.repo.js';
import { emitBatchEvent } from '../../../server/modules/webhooks/outbox.js';
import type { HttpClient } from '../../../server/platform/deps.js';
import { settled } from '../../../server/platform/jobs/later.js';
import { uploadsDir } from '../../../server/platform/uploads/uploads.js';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../../src/api/contract/agent/editor-form.js';
import { PROVIDERS } from '../../../src/api/contract/provider.js';
import { type SignedUp, signUp, TINY_PNG } from '../auth-helpers.js';
import type { TestApp } from '../helpers.js';
import { addFreeNumbers, numberBody } from '../phone-helpers.js';
import { fieldValue } from '../provider-values.js';
import { type Body, call, insertCalls, insertNumber } from '../seed.js';

/**
 * A world of two companies for the security suites: each has a row in every company-scoped table
 * (agents, numbers of its own and of the pool, a number request, a knowledge base, a batch with
 * recipients, a connection to each of the eleven providers, billing limits and contact, calls, a photo),
 * made through the API wherever an endpoint makes it. Every text a tenant owns carries its `marker`, so a
 * response that leaks a foreign row is found by searching for the marker and the foreign ids.
 */

export interface Tenant extends SignedUp {
  /** a string planted in every name and text of this tenant's rows */
  marker: string;
  agentIds: string[];
  /** the number the company registered itself (POST /number/create) */
  ownNumberId: string;
  /** a pool number assigned to the company (batch `fromNumber`) */
  poolNumberId: string;
  poolPhone: string;
  requestedPhone: string;
  kbId: string;
  batchId: string;
  providerIds: string[];
  /** a Test LLM chat and a web call (registered, its socket never opened) */
  chatId: string;
  webCallId: string;
  /** a webhook delivery in the outbox */
  deliveryId: string;
  photoUrl: string;
  /** the provider key values planted for this tenant, by provider name */
  providerSecrets: Record<string, string[]>;
}

let serial = 0;
const phoneOf = (n: number) => `+1312555${String(n).padStart(4, '0')}`;

/** The editor's defaults with a voice chosen: the smallest valid agent form. */
const AGENT_FORM = { ...AGENT_EDITOR_FORM_DEFAULTS, voice: 'Rachel', voiceId: 'voice-a' };

/** A valid agent save payload named `name`. */
export const agentPayload = (name: string, over: Partial<typeof AGENT_EDITOR_FORM_DEFAULTS> = {}) =>
  editorFormToSavePayload({ ...AGENT_FORM, agentName: name, ...over });

/** A provider credential value that is unmistakable when it leaks. */
export const canary = (what: string) => `canary-${what}-${randomBytes(9).toString('hex')}`;

async function ok(
  t: TestApp,
  method: string,
  url: string,
  init: { body?: unknown; token?: string; headers?: Record<string, string> },
) {
  const res = await call(t, method, url, init);
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body as Body;
}

/** Registers a company and fills every company-scoped table for it. */
export async function buildTenant(t: TestApp, label: string): Promise<Tenant> {
  const marker = `${label}-${randomBytes(4).toString('hex')}`;
  const n = ++serial * 10;
  const user = await signUp(t, {
    name: `User ${marker}`,
    password: canary('password'),
    file: new Blob([new Uint8Array(TINY_PNG)]),
    fileName: 'me.png',
  });
  const { token, companyId } = user;
  const me = await ok(t, 'GET', '/account/me', { token });
  await ok(t, 'POST', '/company', { token, body: { name: `Company ${marker}` } });
  // its settings row (retention, default data storage)
  await ok(t, 'PUT', '/company/settings', { token, body: { retention_days: 365, default_data_storage: 'everything' } });

  const agent = await ok(t, 'POST', '/agent', { token, body: agentPayload(`Agent ${marker}`) });
  const agents = await ok(t, 'GET', '/agent', { token });
  const agentIds = (agents.data.agents as { _id: string }[]).map((a) => a._id);
  expect(agentIds).toContain(agent.data.agent._id);

  const own = await ok(t, 'POST', '/number/create', {
    token,
    body: numberBody(phoneOf(n), { nickname: `Line ${marker}`, inbound_agent_id: agent.data.agent._id }),
  });
  const poolPhone = phoneOf(n + 1);
  const poolNumberId = await insertNumber(t, companyId, poolPhone);
  const requestedPhone = phoneOf(n + 2);
  await addFreeNumbers(t, [requestedPhone]);
  await ok(t, 'POST', '/request', { token, body: { phone: requestedPhone } });

  const kbForm = new FormData();
  kbForm.set('knowledge_base_name', `KB ${marker}`);
  kbForm.append('knowledge_base_texts', JSON.stringify({ title: `Title ${marker}`, text: `Text ${marker}` }));
  kbForm.append('knowledge_base_urls', `https://example.com/${marker}`);
  const kb = await ok(t, 'POST', '/knowledge-base', { token, body: kbForm });

  // the background worker chunks the knowledge base
  const worker = createKnowledgeWorker(t.deps);
  while (await worker.runOnce()) {}
  // a reset token waits in the outbox
  await ok(t, 'POST', '/account/forgotpassword', { body: { email: user.email } });
  // (the token and the email are made after the answer)
  await settled(t.deps);

  const batch = await ok(t, 'POST', '/batch-call', {
    token,
    body: { name: `Batch ${marker}`, fromNumber: poolPhone, sendMode: 'now' },
    headers: { 'Idempotency-Key': `key-${marker}` },
  });
  await ok(t, 'POST', `/batch-call/${batch.batch._id}/recipients`, {
    token,
    body: `phone_number,first_name\n+14155550123,${marker}\n+14155550124,${marker}\n`,
    headers: { 'Content-Type': 'text/csv' },
  });

  const providerSecrets: Record<string, string[]> = {};
  const providerIds: string[] = [];
  for (const p of PROVIDERS) {
    const values = p.fields.map((f) => fieldValue(f, canary(`${p.name}-${f.name.replace(/\W/g, '')}`)));
    providerSecrets[p.name] = values;
    const res = await ok(t, 'POST', '/provider/values', {
      token,
      body: { name: p.name, keys: p.fields.map((f, i) => ({ name: f.name, value: values[i] })) },
    });
    providerIds.push(res.provider._id);
  }

  const chat = await ok(t, 'POST', '/chat', { token, body: { agent_id: agentIds[0] } });
  const webCall = await ok(t, 'POST', '/call/web', { token, body: { agent_id: agentIds[0] } });

  await ok(t, 'PUT', '/billing/limits', {
    token,
    body: { concurrencyLimit: 3, monthlySpendLimit: 321, allowedCountries: ['US', 'CA'] },
  });
  await ok(t, 'PUT', '/billing/contact', {
    token,
    body: { name: `Billing ${marker}`, email: `billing@${marker}.example`, address: `Street ${marker}`, taxId: `TAX-${marker}` },
  });
  await insertCalls(t, companyId, [
    { time: '2026-10-03T10:00:00.000Z', duration: 60, cost: 0.5, agentId: agent.data.agent._id },
    { time: '2026-11-03T10:00:00.000Z', duration: 90, cost: 0.75, latencyMs: 640 },
  ]);

  // a Plivo signature's nonce the company's carrier used (the replay guard, server/modules/telephony/nonces.repo.ts)
  expect(await firstUseOfNonce(t.deps, companyId, 'plivo', `nonce-${marker}`)).toBe(true);

  // webhooks: the company-wide URL, its signing secret, a queued delivery, an analysis queued
  await ok(t, 'PUT', '/webhook', { token, body: { url: `https://hooks.example.com/${marker}` } });
  await ok(t, 'POST', '/webhook/secret', { token });
  const [deliveryId] = await emitBatchEvent(t.deps, companyId, { batch_id: batch.batch._id, name: `Batch ${marker}` });
  await queueAnalysis(t.deps, { companyId, callId: webCall.data.call_id });
  // the company's pace of batch dials (the dispatcher writes it when it dials one of its batches)
  await t.deps.db.db.insertInto('batch_dial_pacing').values({ company_id: companyId, next_dial_ms: 0 }).execute();
  // a flow node its web call reached (what GET /call/?node= filters on; the engine writes it when a flow call ends)
  await t.deps.db.db
    .insertInto('call_flow_nodes')
    .values({ company_id: companyId, call_id: webCall.data.call_id, node_id: `node-${marker}` })
    .execute();

  return {
    ...user,
    marker,
    agentIds,
    ownNumberId: own.data.number._id,
    poolNumberId,
    poolPhone,
    requestedPhone,
    kbId: kb.data.knowledge_base.knowledge_base_id,
    batchId: batch.batch._id,
    providerIds,
    chatId: chat.data.chat_id,
    webCallId: webCall.data.call_id,
    deliveryId: deliveryId as string,
    photoUrl: me.account.photoUrl,
    providerSecrets,
  };
}

/** Every id of a tenant that another tenant could try. */
export function idsOf(x: Tenant): string[] {
  return [
    x.companyId,
    x.accountId,
    ...x.agentIds,
    x.ownNumberId,
    x.poolNumberId,
    x.kbId,
    x.batchId,
    ...x.providerIds,
    x.chatId,
    x.webCallId,
    x.deliveryId,
  ];
}

/** Rows in a stable, comparable form: every row as JSON with its keys sorted, the rows sorted. */
function canonical(rows: Record<string, unknown>[]): string[] {
  return rows
    .map((r) =>
      JSON.stringify(
        Object.keys(r)
          .sort()
          .map((k) => [k, r[k] instanceof Date ? (r[k] as Date).toISOString() : r[k]]),
      ),
    )
    .sort();
}

/**
 * Everything company `companyId` owns, byte for byte: its row in `companies`, its rows in every table with
 * a company_id column (found in the catalogue, so a new table is covered without editing this), the
 * refresh tokens of its sessions and the reset tokens of its accounts, and the bytes of its stored files.
 */
export async function snapshotCompany(t: TestApp, companyId: string): Promise<Record<string, string[]>> {
  const db = t.deps.db.db;
  const out: Record<string, string[]> = {};
  const select = async (query: ReturnType<typeof sql>) => canonical((await query.execute(db)).rows as Record<string, unknown>[]);
  out.companies = await select(sql`select * from companies where id = ${companyId}`);
  for (const table of (await companyScopedTables(db, t.deps.db.kind)).sort()) {
    out[table] = await select(sql`select * from ${sql.table(table)} where company_id = ${companyId}`);
  }
  out.refresh_tokens = await select(
    sql`select * from refresh_tokens where session_id in (select id from sessions where company_id = ${companyId})`,
  );
  out.password_reset_tokens = await select(
    sql`select * from password_reset_tokens where account_id in (select id from accounts where company_id = ${companyId})`,
  );
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!e.isFile()) continue;
      const full = path.join(e.parentPath, e.name);
      files.push(`${path.relative(t.dataDir, full)} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`);
    }
  };
  walk(path.dirname(kbDir(t.dataDir, companyId, 'any')));
  for (const f of await db.selectFrom('files').select('name').where('company_id', '=', companyId).execute()) {
    const full = path.join(uploadsDir(t.dataDir), f.name);
    const bytes = fs.existsSync(full) ? fs.readFileSync(full) : Buffer.alloc(0);
    files.push(`${f.name} ${createHash('sha256').update(bytes).digest('hex')} ${bytes.length}`);
  }
  out.files_on_disk = files.sort();
  return out;
}

/** The tables of a snapshot that hold no row of the company (a world that fails to fill them proves less). */
/** Company-scoped tables whose rows live only while a request runs (an upload's lease): empty at rest. */
const TRANSIENT_TABLES = new Set(['pending_uploads']);

export const emptyTables = (snap: Record<string, string[]>) =>
  Object.entries(snap)
    .filter(([k, rows]) => rows.length === 0 && !TRANSIENT_TABLES.has(k))
    .map(([k]) => k);

/** The registered endpoints of an app: method and path of every handler that is not a middleware. */
export function endpointsOf(t: TestApp): string[] {
  const keys = t.app.routes
    // a middleware takes (c, next); a handler takes (c)
    .filter((r) => r.handler.length < 2)
    .map((r) => `${r.method} ${r.path}`);
  return [...new Set(keys)].sort();
}

/** Every table (but the rate-limit counters) and every file under the data directory. */
export async function dumpDatabase(t: TestApp): Promise<Record<string, string[]>> {
  const db = t.deps.db.db;
  const tables =
    t.deps.db.kind === 'postgres'
      ? (
          await sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
        ).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
  const out: Record<string, string[]> = {};
  for (const { name } of tables.sort((x, y) => x.name.localeCompare(y.name))) {
    if (name === 'rate_limits') continue;
    const rows = (await sql`select * from ${sql.table(name)}`.execute(db)).rows as Record<string, unknown>[];
    out[name] = rows.map((r) => JSON.stringify(Object.entries(r).sort(([x], [y]) => x.localeCompare(y)))).sort();
  }
  out.data_dir = fs.existsSync(t.dataDir)
    ? fs
        .readdirSync(t.dataDir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map(
          (e) =>
            `${path.relative(t.dataDir, path.join(e.parentPath, e.name))} ${fs.statSync(path.join(e.parentPath, e.name)).size}`,
        )
        .sort()
    : [];
  return out;
}

/** Outbound provider HTTP for tests: every call is refused like a bad key, with the key echoed in the body. */
export function providerHttp(): HttpClient & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async fetch(url, init) {
      calls.push(url);
      const key = new Headers(init?.headers).get('xi-api-key') ?? '';
      return new Response(JSON.stringify({ detail: { status: 'invalid_api_key', message: `Invalid API key: ${key}` } }), {
        status: 401,
        headers: { 'Content-Type': 'application/json' },
      });
    },
  };
}

/** `path` of the route matrix (`/api/v1/agent/:id`) with the tenant's own id of that resource filled in. */
export function ownUrl(x: Tenant, path: string): string {
  const own: Record<string, string> = {
    agent: x.agentIds[0] as string,
    number: x.ownNumberId,
    'knowledge-base': x.kbId,
    'batch-call': x.batchId,
    provider: x.providerIds[0] as string,
    company: x.companyId,
    statements: '2026-11',
    files: x.photoUrl.split('/').pop() as string,
  };
  const resource = Object.keys(own).find((r) => path.includes(`/${r}/`));
  return path.replace(/:(id|name)/, resource ? (own[resource] as string) : 'x');
}
