import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/modules/agents/sample-agent.js';
import { IDEMPOTENCY_PENDING_STALE_MS, requestHash } from '../../server/platform/http/idempotency.js';
import { IDEMPOTENCY_MESSAGES } from '../../src/api/contract/idempotency.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { addFreeNumbers, numberBody } from './phone-helpers.js';
import { insertNumber } from './seed.js';

const agentBody = (name: string) => ({ ...SAMPLE_AGENT_PAYLOAD, name });

async function createAgent(t: TestApp, token: string, key: string | undefined, name: string) {
  const res = await t.req('POST', '/api/v1/agent', {
    token,
    body: agentBody(name),
    ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
  });
  return { res, text: await res.text() };
}

const agentCount = async (t: TestApp, companyId: string) =>
  Number(
    (
      await t.deps.db.db
        .selectFrom('agents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** One create route of the API, as the idempotency suite drives it. */
interface CreateRoute {
  name: string;
  path: string;
  /** the request body: variant 'a' is the repeated request, 'b' a different one */
  body(variant: 'a' | 'b'): unknown;
  /** the table the route creates rows in */
  table: 'agents' | 'phone_numbers' | 'provider_connections' | 'knowledge_bases' | 'number_requests' | 'batch_calls';
  /** what the company needs before the route can create (numbers in the pool, ...) */
  setup?(t: TestApp, companyId: string): Promise<void>;
  /** what else the one create leaves behind (e.g. files on disk), checked after the concurrent sends */
  leftovers?(t: TestApp): unknown;
  /** the row and the stored answer commit in one transaction (routes without a unique constraint of their own) */
  atomic?: boolean;
}

const FROM = '+14155550101';
const POOL = ['+12125550100', '+12125550101'];

const kbForm = (variant: 'a' | 'b') => {
  const f = new FormData();
  f.set('knowledge_base_name', variant === 'a' ? 'Clinic FAQ' : 'Parking');
  f.append('knowledge_base_files', new Blob([`# FAQ ${variant}\n\nOpen 9 to 5.`], { type: 'text/markdown' }), 'faq.md');
  f.append('knowledge_base_texts', JSON.stringify({ title: 'Hours', text: 'Monday to Friday' }));
  return f;
};

/** Every route that creates a row for the caller's company. */
const CREATE_ROUTES: CreateRoute[] = [
  {
    name: 'agent',
    path: '/agent',
    body: (v) => agentBody(v === 'a' ? 'Triage line' : 'Other line'),
    table: 'agents',
    atomic: true,
  },
  {
    name: 'number',
    path: '/number/create',
    body: (v) => numberBody(v === 'a' ? '+13125550199' : '+13125550198'),
    table: 'phone_numbers',
  },
  {
    name: 'provider connection',
    path: '/provider/values',
    body: (v) => ({
      name: 'twilio',
      keys: [
        { name: 'Account SID', value: 'AC0123456789abcdef' },
        { name: 'Auth Token', value: v === 'a' ? 'token-0123456789' : 'token-9876543210' },
      ],
    }),
    table: 'provider_connections',
  },
  {
    name: 'knowledge base (multipart)',
    path: '/knowledge-base',
    body: kbForm,
    table: 'knowledge_bases',
    atomic: true,
    // the nine repeats streamed their files too: only the one knowledge base's file stays on disk
    leftovers: (t) => {
      const root = path.join(t.dataDir, 'knowledge-base');
      return fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    },
  },
  {
    name: 'number request',
    path: '/request/',
    body: (v) => ({ phone: v === 'a' ? POOL[0] : POOL[1] }),
    table: 'number_requests',
    setup: async (t) => {
      await addFreeNumbers(t, POOL);
    },
  },
  {
    name: 'batch call',
    path: '/batch-call',
    body: (v) => ({ name: v === 'a' ? 'November reminders' : 'December', fromNumber: FROM, sendMode: 'now' }),
    table: 'batch_calls',
    setup: async (t, companyId) => {
      await insertNumber(t, companyId, FROM);
    },
  },
];

const send = async (t: TestApp, token: string, route: CreateRoute, key: string, variant: 'a' | 'b') => {
  const res = await t.req('POST', `/api/v1${route.path}`, {
    token,
    body: route.body(variant),
    headers: { 'Idempotency-Key': key },
  });
  return { status: res.status, text: await res.text(), replayed: res.headers.get('Idempotent-Replayed') };
};

const rowCount = async (t: TestApp, table: CreateRoute['table'], companyId: string) =>
  Number(
    (
      await t.deps.db.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describeEachDb('Idempotency-Key on every create route', (kind) => {
  const t = useTestApp(kind);

  /** Makes every write of a stored answer fail, as a crash right after the create would leave it. */
  async function failAnswerStore(on: boolean) {
    const db = t().deps.db;
    if (db.kind === 'sqlite') {
      await sql`drop trigger if exists fail_answer_store`.execute(db.db);
      if (on)
        await sql`create trigger fail_answer_store before update on idempotency_keys begin select raise(abort, 'store failed'); end`.execute(
          db.db,
        );
      return;
    }
    await sql`drop trigger if exists fail_answer_store on idempotency_keys`.execute(db.db);
    if (on) {
      await sql`create or replace function fail_answer_store() returns trigger language plpgsql as $$ begin raise exception 'store failed'; end $$`.execute(
        db.db,
      );
      await sql`create trigger fail_answer_store before update on idempotency_keys for each row execute function fail_answer_store()`.execute(
        db.db,
      );
    }
  }

  for (const route of CREATE_ROUTES.filter((r) => r.atomic)) {
    it(`${route.name}: the row and the stored answer commit together, so a retry after a failed store creates one row`, async () => {
      const a = await signUp(t());
      const before = await rowCount(t(), route.table, a.companyId);
      await failAnswerStore(true);
      const failed = await send(t(), a.token, route, 'key-atomic', 'a');
      expect(failed.status).toBe(500);
      // nothing of the failed request stayed: no row, and the key is free again
      expect(await rowCount(t(), route.table, a.companyId)).toBe(before);
      await failAnswerStore(false);
      const retry = await send(t(), a.token, route, 'key-atomic', 'a');
      expect(retry.status).toBe(201);
      expect(await rowCount(t(), route.table, a.companyId)).toBe(before + 1);
    });
  }

  for (const route of CREATE_ROUTES) {
    it(`${route.name}: 10 concurrent sends with one key create one row and answer the same; another body answers 422`, async () => {
      const a = await signUp(t());
      await route.setup?.(t(), a.companyId);
      const before = await rowCount(t(), route.table, a.companyId);
      const answers = await Promise.all(Array.from({ length: 10 }, () => send(t(), a.token, route, 'key-ten', 'a')));
      expect(answers[0]?.status, answers[0]?.text).toBe(201);
      expect(answers.map((x) => x.status)).toEqual(Array(10).fill(201));
      expect(new Set(answers.map((x) => x.text)).size).toBe(1);
      expect(answers.filter((x) => x.replayed === 'true')).toHaveLength(9);
      expect(await rowCount(t(), route.table, a.companyId)).toBe(before + 1);
      if (route.leftovers) expect(route.leftovers(t())).toBe(1);

      const other = await send(t(), a.token, route, 'key-ten', 'b');
      expect(other.status).toBe(422);
      expect(JSON.parse(other.text)).toEqual({ success: false, msg: IDEMPOTENCY_MESSAGES.reused });
      expect(await rowCount(t(), route.table, a.companyId)).toBe(before + 1);

      // a later repeat still answers the first answer
      const later = await send(t(), a.token, route, 'key-ten', 'a');
      expect(later).toEqual({ status: 201, text: answers[0]?.text, replayed: 'true' });
    });
  }
});

describeEachDb('Idempotency-Key on create requests', (kind) => {
  const t = useTestApp(kind);

  it('a versioned agent update retried with its key answers the first answer instead of 409', async () => {
    const a = await signUp(t());
    const created = JSON.parse((await createAgent(t(), a.token, undefined, 'Front desk')).text);
    const { _id: id, version } = created.data.agent;
    const update = (key: string | undefined, name: string) =>
      t().req('PUT', `/api/v1/agent/${id}`, {
        token: a.token,
        body: { agent_name: name, version },
        ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
      });
    const first = await update('save-1', 'Front desk 2');
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(JSON.parse(firstText).data.agent.version).toBe(version + 1);
    // the answer was lost: the retry sends the same body and key
    const retry = await update('save-1', 'Front desk 2');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await retry.text()).toBe(firstText);
    // without the key the same retry is refused for its old version; the key is bound to this agent's path
    expect((await update(undefined, 'Front desk 2')).status).toBe(409);
    const other = JSON.parse((await createAgent(t(), a.token, undefined, 'Back office')).text).data.agent;
    const elsewhere = await t().req('PUT', `/api/v1/agent/${other._id}`, {
      token: a.token,
      body: { agent_name: 'Front desk 2', version },
      headers: { 'Idempotency-Key': 'save-1' },
    });
    expect(elsewhere.status).toBe(422);
  });

  it('a failed first request releases the key; without a key every request creates', async () => {
    const a = await signUp(t());
    const bad = await t().req('POST', '/api/v1/agent', {
      token: a.token,
      body: { ...agentBody('x'), name: 42 },
      headers: { 'Idempotency-Key': 'key-retry' },
    });
    expect(bad.status).toBe(400);
    const count = await agentCount(t(), a.companyId);
    expect((await createAgent(t(), a.token, 'key-retry', 'Fixed')).res.status).toBe(201);
    expect((await createAgent(t(), a.token, undefined, 'No key')).res.status).toBe(201);
    expect((await createAgent(t(), a.token, undefined, 'No key')).res.status).toBe(201);
    expect(await agentCount(t(), a.companyId)).toBe(count + 3);
  });

  it('keys are per company, and a malformed key answers 400', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    expect((await createAgent(t(), a.token, 'shared', 'A')).res.status).toBe(201);
    const other = await createAgent(t(), b.token, 'shared', 'A');
    expect(other.res.status).toBe(201);
    expect(other.res.headers.get('Idempotent-Replayed')).toBeNull();
    const bad = await createAgent(t(), a.token, 'has space', 'A');
    expect(bad.res.status).toBe(400);
    expect(JSON.parse(bad.text).msg).toBe(IDEMPOTENCY_MESSAGES.invalid);
  });

  it('a claim left pending by a dead request is taken over once it is stale', async () => {
    const a = await signUp(t());
    expect((await createAgent(t(), a.token, 'orphan', 'Night line')).res.status).toBe(201);
    // make it look like that first request died after claiming the key (a crash mid-request)
    await t()
      .deps.db.db.updateTable('idempotency_keys')
      .set({ state: 'pending', response_status: null, response_body: null })
      .where('company_id', '=', a.companyId)
      .where('key', '=', 'orphan')
      .execute();
    const count = await agentCount(t(), a.companyId);
    t().clock.advance(IDEMPOTENCY_PENDING_STALE_MS + 1);
    const retry = await createAgent(t(), a.token, 'orphan', 'Night line');
    expect(retry.res.status).toBe(201);
    expect(retry.res.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await agentCount(t(), a.companyId)).toBe(count + 1);
    // and the key now replays the new answer
    const again = await createAgent(t(), a.token, 'orphan', 'Night line');
    expect(again.res.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.text).toBe(retry.text);
  });
});

describe('request hash', () => {
  const form = () => {
    const f = new FormData();
    f.set('name', 'Docs');
    f.set('file', new Blob(['hello world'], { type: 'text/plain' }), 'a.txt');
    return f;
  };
  const hashOf = (body: BodyInit) => {
    const req = new Request('http://x/api/v1/knowledge-base', { method: 'POST', body });
    return requestHash(req, 'POST', '/api/v1/knowledge-base');
  };

  it('is the same for the same form sent twice (random boundaries) and differs for a different form', async () => {
    const one = await hashOf(form());
    expect(await hashOf(form())).toBe(one);
    const other = form();
    other.set('name', 'Other');
    expect(await hashOf(other)).not.toBe(one);
  });

  it('differs by body and by route', async () => {
    const req = (body: string, route = '/a') =>
      requestHash(
        new Request('http://x', { method: 'POST', body, headers: { 'content-type': 'application/json' } }),
        'POST',
        route,
      );
    expect(await req('{"a":1}')).toBe(await req('{"a":1}'));
    expect(await req('{"a":1}')).not.toBe(await req('{"a":2}'));
    expect(await req('{"a":1}')).not.toBe(await req('{"a":1}', '/b'));
  });
});
