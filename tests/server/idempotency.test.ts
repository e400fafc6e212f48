import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_PENDING_STALE_MS, requestHash } from '../../server/lib/idempotency.js';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/routes/agent/sample-agent.js';
import { IDEMPOTENCY_MESSAGES } from '../../src/api/contract/idempotency.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

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

describeEachDb('Idempotency-Key on create requests', (kind) => {
  const t = useTestApp(kind);

  it('10 concurrent creates with one key make one agent and answer the same body', async () => {
    const a = await signUp(t());
    const before = await agentCount(t(), a.companyId);
    const answers = await Promise.all(Array.from({ length: 10 }, () => createAgent(t(), a.token, 'key-ten', 'Triage line')));
    expect(answers.map((x) => x.res.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((x) => x.text)).size).toBe(1);
    expect(answers.filter((x) => x.res.headers.get('Idempotent-Replayed') === 'true')).toHaveLength(9);
    expect(await agentCount(t(), a.companyId)).toBe(before + 1);
  });

  it('a key reused with a different body answers 422 and creates nothing', async () => {
    const a = await signUp(t());
    expect((await createAgent(t(), a.token, 'key-x', 'First')).res.status).toBe(201);
    const count = await agentCount(t(), a.companyId);
    const second = await createAgent(t(), a.token, 'key-x', 'Second');
    expect(second.res.status).toBe(422);
    expect(JSON.parse(second.text)).toEqual({ success: false, msg: IDEMPOTENCY_MESSAGES.reused });
    expect(await agentCount(t(), a.companyId)).toBe(count);
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
