import * as v from 'valibot';
import { expect, it } from 'vitest';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/modules/agents/sample-agent.js';
import { grantNumberRequests, pendingNumberRequests } from '../../server/modules/numbers/request.repo.js';
import {
  type FreeNumber,
  PHONE_MESSAGES,
  type PhoneNumber,
  PhoneNumberListResponseSchema,
  PhoneNumberResponseSchema,
} from '../../src/api/contract/phone.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { addFreeNumbers, api, type Body, firstAgent, numberBody } from './phone-helpers.js';

const POOL = Array.from({ length: 12 }, (_, i) => `+1212555${String(100 + i).padStart(4, '0')}`);

const free = (t: TestApp, token: string, qs = '') => api(t, 'GET', `/phone/free${qs}`, { token });
const assigned = (t: TestApp, token: string, qs = '') => api(t, 'GET', `/phone/assigned${qs}`, { token });
const phones = (res: { body: Body }) => (res.body.data.numbers as { phone: string }[]).map((n) => n.phone);

/** A company that owns `phone` (requested and granted through the real path). */
async function owning(t: TestApp, phone: string) {
  const user = await signUp(t);
  expect((await api(t, 'POST', '/request/', { token: user.token, body: { phone } })).status).toBe(201);
  await grantNumberRequests(t.deps.db.db, { now: t.clock.now(), companyId: user.companyId });
  const mine = await assigned(t, user.token);
  const number = (mine.body.data.numbers as PhoneNumber[]).find((n) => n.phone === phone);
  expect(number, `${phone} granted`).toBeDefined();
  return { user, number: number as PhoneNumber };
}

describeEachDb('phone numbers', (kind) => {
  const t = useTestApp(kind);

  it('lists the free pool page by page (zero-based), in number order, with search and sort', async () => {
    const { token } = await signUp(t());
    expect((await free(t(), token)).body).toEqual({ success: true, data: { numbers: [], total: 0 } });
    await addFreeNumbers(t(), [...POOL].reverse());

    const first = await free(t(), token);
    expect(first.status).toBe(200);
    expect(first.body.data.total).toBe(12);
    expect(phones(first)).toEqual(POOL.slice(0, 10));
    const row = first.body.data.numbers[0] as FreeNumber;
    expect(row).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      phone: '+12125550100',
      provider: 'twilio',
      phone_number_pretty: '(212) 555-0100',
      phone_number_type: 'local',
      area_code: 212,
      requested: false,
    });
    expect(phones(await free(t(), token, '?page=1&limit=10'))).toEqual(POOL.slice(10));
    expect(phones(await free(t(), token, '?page=2&limit=5'))).toEqual(POOL.slice(10));
    expect((await free(t(), token, '?page=9')).body.data).toEqual({ numbers: [], total: 12 });

    // search: the digits, whatever the formatting
    const found = await free(t(), token, `?search=${encodeURIComponent('555-0105')}`);
    expect(phones(found)).toEqual(['+12125550105']);
    expect(found.body.data.total).toBe(1);
    expect((await free(t(), token, '?search=nothing')).body.data.total).toBe(0);
    // sort: provider first (plivo < twilio), then the number
    const sorted = phones(await free(t(), token, `?limit=12&sort=${encodeURIComponent('{"provider":-1,"phone":-1}')}`));
    expect(sorted).toEqual([
      ...POOL.filter((p) => Number(p.at(-1)) % 2 === 0).reverse(),
      ...POOL.filter((p) => Number(p.at(-1)) % 2 === 1).reverse(),
    ]);
  });

  it('refuses bad list parameters with 400 and a message naming them', async () => {
    const { token } = await signUp(t());
    for (const [qs, name] of [
      ['?page=-1', 'page'],
      ['?page=x', 'page'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?sort=%7B%22secret%22%3A1%7D', 'sort'],
      ['?sort=phone', 'sort'],
      [`?search=${'9'.repeat(101)}`, 'search'],
    ] as const) {
      for (const path of ['/phone/free', '/phone/assigned', '/number/']) {
        // GET /number allows up to 1000 (the filter dialog's whole list)
        const res = await api(t(), 'GET', `${path}${path === '/number/' ? qs.replace('101', '1001') : qs}`, { token });
        expect(res.status, `${path}${qs}`).toBe(400);
        expect(res.body.success).toBe(false);
        expect(res.body.msg).toContain(`'${name}'`);
      }
    }
    expect((await api(t(), 'GET', '/number/?limit=1000', { token })).status).toBe(200);
  });

  it('records a request once per company and number, and shows it as requested to that company only', async () => {
    await addFreeNumbers(t(), POOL.slice(0, 3));
    const a = await signUp(t());
    const b = await signUp(t());

    const first = await api(t(), 'POST', '/request/', { token: a.token, body: { phone: POOL[1] } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      success: true,
      msg: `Request for phone number ${POOL[1]} has been sent.`,
      data: { request: { phone: POOL[1], granted: false } },
    });
    // again, and again in another formatting: the same request, nothing changes
    t().clock.advance(60_000);
    const again = await api(t(), 'POST', '/request', { token: a.token, body: { phone: '(212) 555-0101' } });
    expect(again.status).toBe(200);
    expect(again.body.data.request).toEqual(first.body.data.request);
    expect(await pendingNumberRequests(t().deps.db.db)).toHaveLength(1);

    // 'Requested' survives a reload: the free list says so, to the requesting company only
    const seenByA = (await free(t(), a.token)).body.data.numbers as FreeNumber[];
    expect(seenByA.map((n) => [n.phone, n.requested])).toEqual([
      [POOL[0], false],
      [POOL[1], true],
      [POOL[2], false],
    ]);
    expect(((await free(t(), b.token)).body.data.numbers as FreeNumber[]).every((n) => !n.requested)).toBe(true);
    // another company may ask for the same number
    expect((await api(t(), 'POST', '/request/', { token: b.token, body: { phone: POOL[1] } })).status).toBe(201);
    expect(await pendingNumberRequests(t().deps.db.db)).toHaveLength(2);
  });

  it('answers 404 for a number that is not in the free pool and 400 for a missing one', async () => {
    await addFreeNumbers(t(), POOL.slice(0, 1));
    const { number } = await owning(t(), POOL[0]!);
    const other = await signUp(t());
    const taken = await api(t(), 'POST', '/request/', { token: other.token, body: { phone: number.phone } });
    expect(taken.status).toBe(404);
    expect(taken.body).toEqual({ success: false, msg: PHONE_MESSAGES.notAvailable });
    const unknown = await api(t(), 'POST', '/request/', { token: other.token, body: { phone: '+19995550100' } });
    expect(unknown.status).toBe(404);
    expect((await api(t(), 'POST', '/request/', { token: other.token, body: {} })).status).toBe(400);
    expect((await api(t(), 'POST', '/request/', { token: other.token, body: { phone: 42 } })).status).toBe(400);
  });

  it('grants requests: the earliest request wins, the number moves to that company and leaves the pool', async () => {
    await addFreeNumbers(t(), POOL.slice(0, 3));
    const a = await signUp(t());
    const b = await signUp(t());
    await api(t(), 'POST', '/request/', { token: b.token, body: { phone: POOL[0] } });
    t().clock.advance(1000);
    await api(t(), 'POST', '/request/', { token: a.token, body: { phone: POOL[0] } });
    await api(t(), 'POST', '/request/', { token: a.token, body: { phone: POOL[2] } });

    // one company's requests only
    t().clock.advance(1000);
    const onlyA = await grantNumberRequests(t().deps.db.db, { now: t().clock.now(), companyId: a.companyId });
    expect(onlyA.map((g) => g.phone)).toEqual([POOL[0], POOL[2]]);
    expect(phones(await assigned(t(), a.token))).toEqual([POOL[0], POOL[2]]);
    // b's request for the same number is dropped: the number is no longer free
    expect(await grantNumberRequests(t().deps.db.db, { now: t().clock.now() })).toEqual([]);
    expect(phones(await assigned(t(), b.token))).toEqual([]);
    expect(phones(await free(t(), b.token))).toEqual([POOL[1]]);

    const mine = (await assigned(t(), a.token)).body.data.numbers as PhoneNumber[];
    expect(mine[0]).toMatchObject({
      phone: POOL[0],
      phone_number: POOL[0],
      provider: 'twilio',
      companyId: a.companyId,
      accountId: a.accountId,
      origin: 'pool',
      assignedAt: t().clock.now().toISOString(),
      inbound_agent_id: null,
      outbound_agent_id: null,
    });
    expect(v.safeParse(PhoneNumberListResponseSchema, (await assigned(t(), a.token)).body).success).toBe(true);
    // asking again for a granted number changes nothing
    const again = await api(t(), 'POST', '/request/', { token: a.token, body: { phone: POOL[0] } });
    expect(again.status).toBe(200);
    expect(again.body.data.request.granted).toBe(true);
  });

  it('grants at once with REQUEST_AUTO_GRANT', async () => {
    t().deps.config.requestAutoGrant = true;
    await addFreeNumbers(t(), POOL.slice(0, 2));
    const a = await signUp(t());
    const res = await api(t(), 'POST', '/request/', { token: a.token, body: { phone: POOL[1] } });
    expect(res.status).toBe(201);
    expect(res.body.data.request.granted).toBe(true);
    expect(phones(await assigned(t(), a.token))).toEqual([POOL[1]]);
    expect(phones(await free(t(), a.token))).toEqual([POOL[0]]);
  });

  it('creates a number of the company with the section 5 rules; account and company come from the token', async () => {
    const a = await signUp(t());
    const agent = await firstAgent(t(), a.token);
    const created = await api(t(), 'POST', '/number/create', {
      token: a.token,
      body: numberBody('(312) 555-0199', {
        nickname: '  Main line ',
        area_code: '312',
        inbound_agent_id: agent._id,
        accountId: 'someone-else',
        companyId: 'another-company',
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.msg).toBe('Phone number created');
    expect(v.safeParse(PhoneNumberResponseSchema, created.body).success).toBe(true);
    expect(created.body.data.number).toMatchObject({
      phone: '+13125550199',
      phone_number: '+13125550199',
      phone_number_type: 'local',
      phone_number_pretty: '(312) 555-0199',
      termination_uri: 'acme.pstn.twilio.com',
      nickname: 'Main line',
      assistantId: '',
      area_code: 312,
      provider: 'twilio',
      inbound_agent_id: agent._id,
      inbound_agent_name: agent.agent_name,
      outbound_agent_id: null,
      accountId: a.accountId,
      companyId: a.companyId,
      origin: 'company',
    });
    const id = created.body.data.number._id;
    expect((await api(t(), 'GET', `/number/${id}`, { token: a.token })).body.data.number).toEqual(created.body.data.number);
    expect(phones(await api(t(), 'GET', '/number/', { token: a.token }))).toEqual(['+13125550199']);

    // a retried create with the same Idempotency-Key gets the first answer, not 409
    const once = async () => {
      const res = await t().req('POST', '/api/v1/number/create', {
        token: a.token,
        body: numberBody('+13125550188'),
        headers: { 'Idempotency-Key': 'create-0188' },
      });
      return { status: res.status, body: (await res.json()) as Body };
    };
    const first = await once();
    const retried = await once();
    expect(first.status).toBe(201);
    expect(retried.status).toBe(201);
    expect(retried.body.data.number._id).toBe(first.body.data.number._id);

    // the number is platform-wide unique
    const b = await signUp(t());
    const dup = await api(t(), 'POST', '/number/create', { token: b.token, body: numberBody('+1 312 555 0199') });
    expect(dup.status).toBe(409);
    expect(dup.body.msg).toBe(PHONE_MESSAGES.alreadyRegistered);
  });

  it('refuses an invalid number form with the messages of the specification', async () => {
    const { token } = await signUp(t());
    const cases: [Record<string, unknown>, string, string][] = [
      [numberBody('12345'), 'phone_number', 'Invalid phone number'],
      [numberBody('phone number'), 'phone_number', 'Invalid phone number'],
      [numberBody('+1 (312) 555-01'), 'phone_number', 'Invalid phone number'],
      [{ ...numberBody(), phone_number: undefined }, 'phone_number', 'Invalid phone number'],
      [numberBody(undefined, { phone_number_type: '' }), 'phone_number_type', 'Phone number type is required'],
      [numberBody(undefined, { phone_number_type: undefined }), 'phone_number_type', 'Phone number type is required'],
      [numberBody(undefined, { phone_number_type: 'satellite' }), 'phone_number_type', PHONE_MESSAGES.unknownType],
      [numberBody(undefined, { phone_number_pretty: '  ' }), 'phone_number_pretty', 'Pretty phone number is required'],
      [numberBody(undefined, { termination_uri: '' }), 'termination_uri', 'Termination URI is required'],
      [numberBody(undefined, { area_code: 'abc' }), 'area_code', PHONE_MESSAGES.invalidAreaCode],
      [numberBody(undefined, { area_code: 1.5 }), 'area_code', PHONE_MESSAGES.invalidAreaCode],
      [numberBody(undefined, { provider: 'vonage' }), 'provider', PHONE_MESSAGES.unknownProvider],
    ];
    for (const [body, field, msg] of cases) {
      const res = await api(t(), 'POST', '/number/create', { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.errors[field], JSON.stringify(res.body)).toBe(msg);
    }
    expect((await api(t(), 'GET', '/number/', { token })).body.data.total).toBe(0);
  });

  it('updates any subset of fields; a pool number keeps its number, a company number may change it', async () => {
    await addFreeNumbers(t(), POOL.slice(0, 1));
    const { user, number } = await owning(t(), POOL[0]!);
    const url = `/number/${number._id}`;
    t().clock.advance(5000);
    const res = await api(t(), 'PUT', url, {
      token: user.token,
      body: { nickname: 'Reception', area_code: null, termination_uri: 'x.pstn.twilio.com' },
    });
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe('Phone number updated');
    expect(res.body.data.number).toMatchObject({
      nickname: 'Reception',
      area_code: null,
      termination_uri: 'x.pstn.twilio.com',
      phone: POOL[0],
      updatedAt: t().clock.now().toISOString(),
    });
    // clearing with '' and the same number are fine; empty body, blank required fields are not
    expect(
      (await api(t(), 'PUT', url, { token: user.token, body: { nickname: '', phone_number: POOL[0] } })).body.data.number
        .nickname,
    ).toBe('');
    const nothing = await api(t(), 'PUT', url, { token: user.token, body: {} });
    expect(nothing.status).toBe(400);
    expect(nothing.body.msg).toBe(PHONE_MESSAGES.nothingToUpdate);
    const blank = await api(t(), 'PUT', url, { token: user.token, body: { phone_number_pretty: '' } });
    expect(blank.body.errors.phone_number_pretty).toBe('Pretty phone number is required');
    const short = await api(t(), 'PUT', url, { token: user.token, body: { phone_number: '123' } });
    expect(short.status).toBe(400);
    expect(short.body.errors.phone_number).toBe('Invalid phone number');
    const moved = await api(t(), 'PUT', url, { token: user.token, body: { phone_number: '+13125550100' } });
    expect(moved.status).toBe(400);
    expect(moved.body.msg).toBe(PHONE_MESSAGES.poolNumberFixed);

    const own = await api(t(), 'POST', '/number/create', { token: user.token, body: numberBody('+13125550111') });
    const ownUrl = `/number/${own.body.data.number._id}`;
    const changed = await api(t(), 'PUT', ownUrl, { token: user.token, body: { phone_number: '312-555-0112' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.number.phone).toBe('+13125550112');
    const clash = await api(t(), 'PUT', ownUrl, { token: user.token, body: { phone_number: POOL[0] } });
    expect(clash.status).toBe(409);
  });

  it('keeps one direction at a time: setting inbound clears outbound and the reverse', async () => {
    await addFreeNumbers(t(), POOL.slice(0, 1));
    const { user, number } = await owning(t(), POOL[0]!);
    const agent = await firstAgent(t(), user.token);
    const second = await api(t(), 'POST', '/agent', {
      token: user.token,
      body: { ...SAMPLE_AGENT_PAYLOAD, name: 'Reminder caller' },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const other = second.body.data.agent._id as string;
    const url = `/number/${number._id}`;

    const inbound = await api(t(), 'PUT', url, { token: user.token, body: { inbound_agent_id: agent._id } });
    expect(inbound.status).toBe(200);
    expect(inbound.body.msg).toBe('Phone number agents updated');
    expect(inbound.body.data.number).toMatchObject({ inbound_agent_id: agent._id, outbound_agent_id: null });

    // outbound only: the inbound agent is cleared
    const outbound = await api(t(), 'PUT', url, { token: user.token, body: { outbound_agent_id: other } });
    expect(outbound.body.data.number).toMatchObject({
      inbound_agent_id: null,
      outbound_agent_id: other,
      outbound_agent_name: 'Reminder caller',
    });
    // the assign dialog's explicit form
    const back = await api(t(), 'PUT', url, { token: user.token, body: { inbound_agent_id: other, outbound_agent_id: null } });
    expect(back.body.data.number).toMatchObject({ inbound_agent_id: other, outbound_agent_id: null });
    // both at once: refused
    const both = await api(t(), 'PUT', url, {
      token: user.token,
      body: { inbound_agent_id: agent._id, outbound_agent_id: other },
    });
    expect(both.status).toBe(400);
    expect(both.body.msg).toContain(PHONE_MESSAGES.bothDirections);
    const bothCreate = await api(t(), 'POST', '/number/create', {
      token: user.token,
      body: numberBody(undefined, { inbound_agent_id: agent._id, outbound_agent_id: other }),
    });
    expect(bothCreate.status).toBe(400);
    // clearing the agent
    const cleared = await api(t(), 'PUT', url, { token: user.token, body: { inbound_agent_id: null } });
    expect(cleared.body.data.number).toMatchObject({ inbound_agent_id: null, outbound_agent_id: null });
  });

  it("refuses another company's agents and unknown agents with 400", async () => {
    await addFreeNumbers(t(), POOL.slice(0, 1));
    const { user, number } = await owning(t(), POOL[0]!);
    const stranger = await signUp(t());
    const foreign = await firstAgent(t(), stranger.token);
    for (const body of [
      { inbound_agent_id: foreign._id },
      { outbound_agent_id: foreign._id },
      { inbound_agent_id: 'ffffffffffffffffffffffff' },
      { outbound_agent_id: 'not-an-id' },
    ]) {
      const res = await api(t(), 'PUT', `/number/${number._id}`, { token: user.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.values(res.body.errors)).toEqual([PHONE_MESSAGES.agentNotFound]);
      const created = await api(t(), 'POST', '/number/create', { token: user.token, body: numberBody(undefined, body) });
      expect(created.status).toBe(400);
    }
    const unchanged = await api(t(), 'GET', `/number/${number._id}`, { token: user.token });
    expect(unchanged.body.data.number).toMatchObject({ inbound_agent_id: null, outbound_agent_id: null });
  });

  it('clears a deleted agent from the numbers that use it', async () => {
    await addFreeNumbers(t(), POOL.slice(0, 2));
    const { user, number } = await owning(t(), POOL[0]!);
    const agent = await firstAgent(t(), user.token);
    await api(t(), 'PUT', `/number/${number._id}`, { token: user.token, body: { inbound_agent_id: agent._id } });
    const own = await api(t(), 'POST', '/number/create', {
      token: user.token,
      body: numberBody(undefined, { outbound_agent_id: agent._id }),
    });
    expect(own.status).toBe(201);
    expect((await api(t(), 'DELETE', `/agent/${agent._id}`, { token: user.token })).status).toBe(200);
    const after = (await api(t(), 'GET', '/number/', { token: user.token })).body.data.numbers as PhoneNumber[];
    expect(after).toHaveLength(2);
    for (const n of after) expect(n).toMatchObject({ inbound_agent_id: null, outbound_agent_id: null, inbound_agent_name: null });
  });

  it('deletes: a pool number returns to the pool reset, a company number is removed', async () => {
    await addFreeNumbers(t(), POOL.slice(0, 1));
    const { user, number } = await owning(t(), POOL[0]!);
    const agent = await firstAgent(t(), user.token);
    await api(t(), 'PUT', `/number/${number._id}`, {
      token: user.token,
      body: { nickname: 'Desk', inbound_agent_id: agent._id, phone_number_pretty: 'DESK', termination_uri: 'mine.example.com' },
    });
    const released = await api(t(), 'DELETE', `/number/${number._id}`, { token: user.token });
    expect(released.status).toBe(200);
    expect(released.body).toEqual({ success: true, msg: 'Phone number deleted', data: { _id: number._id, released: true } });
    expect(phones(await assigned(t(), user.token))).toEqual([]);
    const pool = (await free(t(), user.token)).body.data.numbers as FreeNumber[];
    expect(pool).toEqual([
      expect.objectContaining({ _id: number._id, phone: POOL[0], phone_number_pretty: '(212) 555-0100', requested: false }),
    ]);
    // the company may ask for it again
    expect((await api(t(), 'POST', '/request/', { token: user.token, body: { phone: POOL[0] } })).status).toBe(201);

    const own = await api(t(), 'POST', '/number/create', { token: user.token, body: numberBody() });
    const ownId = own.body.data.number._id;
    const removed = await api(t(), 'DELETE', `/number/${ownId}`, { token: user.token });
    expect(removed.body.data).toEqual({ _id: ownId, released: false });
    expect(phones(await free(t(), user.token))).toEqual([POOL[0]]);
    expect((await api(t(), 'DELETE', `/number/${ownId}`, { token: user.token })).status).toBe(404);
  });

  it("isolates tenants: another company's number answers 404 exactly like a missing one", async () => {
    await addFreeNumbers(t(), POOL.slice(0, 1));
    const { user, number } = await owning(t(), POOL[0]!);
    const stranger = await signUp(t());
    const missing = { success: false, msg: PHONE_MESSAGES.notFound };
    for (const id of [number._id, 'ffffffffffffffffffffffff', 'not-an-id']) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { nickname: 'mine now' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await api(t(), method, `/number/${id}`, { token: stranger.token, body });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.body).toEqual(missing);
      }
    }
    // the foreign agent check never reveals anything about another company's number
    const probe = await api(t(), 'PUT', `/number/${number._id}`, { token: stranger.token, body: { inbound_agent_id: 'x' } });
    expect(probe.status).toBe(404);
    expect(phones(await assigned(t(), stranger.token))).toEqual([]);
    expect(phones(await api(t(), 'GET', '/number/', { token: stranger.token }))).toEqual([]);
    const still = await api(t(), 'GET', `/number/${number._id}`, { token: user.token });
    expect(still.body.data.number.nickname).toBe('');
    // and nothing answers without a token
    for (const [method, path] of [
      ['GET', '/phone/free'],
      ['GET', '/phone/assigned'],
      ['POST', '/request/'],
      ['GET', '/number/'],
      ['POST', '/number/create'],
      ['GET', `/number/${number._id}`],
      ['PUT', `/number/${number._id}`],
      ['DELETE', `/number/${number._id}`],
      ['GET', '/call/'],
    ] as const) {
      expect((await api(t(), method, path, { body: method === 'GET' ? undefined : {} })).status, `${method} ${path}`).toBe(401);
    }
  });
});
