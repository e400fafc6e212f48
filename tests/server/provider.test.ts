import { afterAll, expect, it } from 'vitest';
import { getProviderSecret } from '../../server/modules/providers/provider.store.js';
import { SecretDecryptError } from '../../server/platform/crypto/secrets.js';
import { PROVIDER_NAMES, PROVIDERS } from '../../src/api/contract/provider.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from './helpers.js';
import { fieldValue } from './provider-values.js';

/** Planted in every credential this file sends; it must never come back in a body or a log line. */
const CANARY = 'CANARY-d41d8cd98f00b204';
const SID = `AC${CANARY}-sid-0123456789abcdef`;
const TOKEN = `${CANARY}-token-fedcba9876543210`;
const BODIES: string[] = [];

afterAll(() => {
  const leaks = [...BODIES, ...LOG_LINES].filter((text) => text.includes(CANARY));
  expect(leaks).toEqual([]);
  // the check itself must have seen traffic
  expect(BODIES.length).toBeGreaterThan(50);
});

/** Calls the API and records the response body for the canary check. */
async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  const text = await res.text();
  BODIES.push(text);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: json as any };
}

const twilioKeys = (sid = SID, token = TOKEN) => [
  { name: 'Account SID', value: sid },
  { name: 'Auth Token', value: token },
];

describeEachDb('providers', (kind) => {
  const t = useTestApp(kind);

  it('lists the catalogue with paging and search, _id = slug until connected', async () => {
    const { token } = await signUp(t());
    const first = await call(t(), 'GET', '/user/providers', { token });
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.total).toBe(12);
    expect(first.body.providers).toHaveLength(9);
    expect(first.body.providers[0]).toEqual({
      _id: 'deepgram',
      name: 'deepgram',
      label: 'Deepgram',
      company: null,
      connected: false,
      keys: [{ name: 'API Key', secret: true }],
    });
    const second = await call(t(), 'GET', '/user/providers?page=2&limit=9', { token });
    expect(second.body.providers.map((p: { name: string }) => p.name)).toEqual(['perplexity', 'smallest', 'whatsapp']);
    const all = await call(t(), 'GET', '/user/providers?page=1&limit=15', { token });
    expect(all.body.providers.map((p: { name: string }) => p.name)).toEqual([...PROVIDER_NAMES]);
    const twilio = all.body.providers.find((p: { name: string }) => p.name === 'twilio');
    expect(twilio.keys).toEqual([
      { name: 'Account SID', secret: false },
      { name: 'Auth Token', secret: true },
    ]);

    const cal = await call(t(), 'GET', '/user/providers?search=CAL', { token });
    expect(cal.body.providers.map((p: { name: string }) => p.name)).toEqual(['calcom', 'calendly']);
    expect(cal.body.total).toBe(2);
    const label = await call(t(), 'GET', `/user/providers?search=${encodeURIComponent('cal.com')}`, { token });
    expect(label.body.providers.map((p: { name: string }) => p.name)).toEqual(['calcom']);
    const none = await call(t(), 'GET', '/user/providers?search=zzz', { token });
    expect(none.body).toEqual({ success: true, providers: [], total: 0 });

    for (const bad of ['page=0', 'limit=0', 'limit=101', 'page=x']) {
      expect((await call(t(), 'GET', `/user/providers?${bad}`, { token })).status).toBe(400);
    }
  });

  it('answers connection status for all (empty name) or one provider', async () => {
    const { token } = await signUp(t());
    for (const url of ['/provider', '/provider?name=']) {
      const res = await call(t(), 'GET', url, { token });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(PROVIDER_NAMES.map((name) => ({ name, connected: false })));
    }
    const one = await call(t(), 'GET', '/provider?name=twilio', { token });
    expect(one.body.data).toEqual([{ name: 'twilio', connected: false }]);
    expect((await call(t(), 'GET', '/provider?name=acme', { token })).status).toBe(404);
  });

  it('gives empty fields before connecting; 400 without a name, 404 for an unknown provider', async () => {
    const { token } = await signUp(t());
    const res = await call(t(), 'GET', '/provider/fields?name=whatsapp', { token });
    expect(res.body).toEqual({
      success: true,
      name: 'whatsapp',
      label: 'WhatsApp',
      _id: null,
      connected: false,
      keys: [
        { name: 'Phone Number ID', value: '', secret: false },
        { name: 'Access Token', value: '', secret: true },
      ],
    });
    expect((await call(t(), 'GET', '/provider/fields', { token })).status).toBe(400);
    expect((await call(t(), 'GET', '/provider/fields?name=', { token })).status).toBe(400);
    expect((await call(t(), 'GET', '/provider/fields?name=acme', { token })).status).toBe(404);
  });

  it('connects with every field, then shows only masks; refuses missing, unknown, repeated fields and a second connect', async () => {
    const { token, companyId } = await signUp(t());
    const missing = await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'twilio', keys: [{ name: 'Account SID', value: SID }] },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toBe('Please fill in the following fields: Auth Token');
    const blank = await call(t(), 'POST', '/provider/values', { token, body: { name: 'twilio', keys: twilioKeys(SID, '   ') } });
    expect(blank.status).toBe(400);
    expect(blank.body.errors).toEqual({ 'Auth Token': 'A value is required' });
    const unknown = await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'twilio', keys: [...twilioKeys(), { name: 'Region', value: TOKEN }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toBe('Twilio has no field named Region');
    const repeated = await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'twilio', keys: [...twilioKeys(), { name: 'Auth Token', value: TOKEN }] },
    });
    expect(repeated.status).toBe(400);
    const noProvider = await call(t(), 'POST', '/provider/values', { token, body: { name: 'acme', keys: twilioKeys() } });
    expect(noProvider.status).toBe(400);
    const notAString = await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'twilio', keys: [{ name: 'Account SID', value: 12345 }] },
    });
    expect(notAString.status).toBe(400);
    expect((await call(t(), 'GET', '/provider?name=twilio', { token })).body.data[0].connected).toBe(false);

    const ok = await call(t(), 'POST', '/provider/values', { token, body: { name: 'twilio', keys: twilioKeys() } });
    expect(ok.status).toBe(201);
    expect(ok.body.msg).toBe('Twilio has been successfully connected.');
    expect(ok.body.provider).toMatchObject({ name: 'twilio', company: companyId, connected: true });
    const id = ok.body.provider._id as string;
    expect(id).toMatch(/^[0-9a-f]{24}$/);

    const fields = await call(t(), 'GET', '/provider/fields?name=twilio', { token });
    expect(fields.body).toMatchObject({ _id: id, connected: true });
    expect(fields.body.keys).toEqual([
      { name: 'Account SID', value: 'ACC…cdef', secret: false },
      { name: 'Auth Token', value: 'CAN…3210', secret: true },
    ]);
    const list = await call(t(), 'GET', '/user/providers?search=twilio', { token });
    expect(list.body.providers[0]).toMatchObject({ _id: id, company: companyId, connected: true });
    const status = await call(t(), 'GET', '/provider', { token });
    expect(status.body.data.filter((p: { connected: boolean }) => p.connected)).toEqual([{ name: 'twilio', connected: true }]);

    const again = await call(t(), 'POST', '/provider/values', { token, body: { name: 'twilio', keys: twilioKeys() } });
    expect(again.status).toBe(409);

    // encrypted at rest: the database row holds no plain value
    const row = await t().deps.db.db.selectFrom('provider_connections').selectAll().executeTakeFirstOrThrow();
    expect(row.secrets).not.toContain(CANARY);
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Auth Token')).toBe(TOKEN);
  });

  it('each provider asks for its real credential fields (secrets flagged), all empty before connecting', async () => {
    const expected: Record<string, [string, boolean, { optional?: true; url?: true }?][]> = {
      deepgram: [['API Key', true]],
      elevenlabs: [['API Key', true]],
      cartesia: [['API Key', true]],
      openai: [
        ['API Key', true],
        ['Base URL', false, { optional: true, url: true }],
      ],
      anthropic: [['API Key', true]],
      calcom: [['API Key', true]],
      calendly: [['Personal Access Token', true]],
      twilio: [
        ['Account SID', false],
        ['Auth Token', true],
      ],
      plivo: [
        ['Auth ID', false],
        ['Auth Token', true],
      ],
      perplexity: [['API Key', true]],
      smallest: [['API Key', true]],
      whatsapp: [
        ['Phone Number ID', false],
        ['Access Token', true],
      ],
    };
    expect(Object.keys(expected)).toEqual([...PROVIDER_NAMES]);
    const { token } = await signUp(t());
    for (const [name, fields] of Object.entries(expected)) {
      const res = await call(t(), 'GET', `/provider/fields?name=${name}`, { token });
      expect(res.status, name).toBe(200);
      expect(res.body.keys, name).toEqual(fields.map(([field, secret, flags]) => ({ name: field, value: '', secret, ...flags })));
      expect(res.body).toMatchObject({ success: true, name, _id: null, connected: false });
    }
  });

  it('every stored value comes back masked, never plain, for every provider', async () => {
    const { token } = await signUp(t());
    for (const p of PROVIDERS) {
      const keys = p.fields.map((f, i) => ({ name: f.name, value: fieldValue(f, `${CANARY}-${p.name}-${i}-wxyz${i}`) }));
      expect((await call(t(), 'POST', '/provider/values', { token, body: { name: p.name, keys } })).status).toBe(201);
      const fields = await call(t(), 'GET', `/provider/fields?name=${p.name}`, { token });
      expect(fields.body.keys.map((k: { value: string }) => k.value)).toEqual(
        p.fields.map((f, i) => `${f.url ? 'htt' : 'CAN'}…xyz${i}`),
      );
    }
  });

  it('refuses a masked value when connecting (the mask is not a credential) without echoing it', async () => {
    const { token } = await signUp(t());
    const res = await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'twilio', keys: twilioKeys(SID, 'CAN…3210') },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      msg: 'Auth Token: Enter the full value, not its masked form',
      errors: { 'Auth Token': 'Enter the full value, not its masked form' },
    });
    expect((await call(t(), 'GET', '/provider?name=twilio', { token })).body.data[0].connected).toBe(false);
  });

  it("a ciphertext moved into another company's row does not open there: masked as empty, never kept on update", async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    await call(t(), 'POST', '/provider/values', { token: a.token, body: { name: 'twilio', keys: twilioKeys() } });
    const bKeys = twilioKeys('ACbbbbbbbbbbbbbbbbbb', 'b-token-bbbbbbbbbbbbbbbb');
    const own = await call(t(), 'POST', '/provider/values', { token: b.token, body: { name: 'twilio', keys: bKeys } });
    const bId = own.body.provider._id as string;
    // an attacker with database access copies A's sealed secrets into B's row
    const db = t().deps.db.db;
    const aRow = await db
      .selectFrom('provider_connections')
      .select('secrets')
      .where('company_id', '=', a.companyId)
      .executeTakeFirstOrThrow();
    await db.updateTable('provider_connections').set({ secrets: aRow.secrets }).where('id', '=', bId).execute();

    await expect(getProviderSecret(t().deps, b.companyId, 'twilio', 'Auth Token')).rejects.toBeInstanceOf(SecretDecryptError);
    const fields = await call(t(), 'GET', '/provider/fields?name=twilio', { token: b.token });
    expect(fields.status).toBe(200);
    expect(fields.body).toMatchObject({ _id: bId, connected: true });
    expect(fields.body.keys.map((k: { value: string }) => k.value)).toEqual(['', '']);
    expect(LOG_LINES.some((l) => l.includes('stored provider secret cannot be decrypted') && l.includes(b.companyId))).toBe(true);

    // omitted, or sent back as A's mask: the unreadable ciphertext is not kept
    const omitted = await call(t(), 'PUT', `/provider/${bId}`, { token: b.token, body: { keys: [] } });
    expect(omitted.status).toBe(400);
    expect(omitted.body.msg).toBe('Please fill in the following fields: Account SID, Auth Token');
    const aMasks = [
      { name: 'Account SID', value: 'ACC…cdef' },
      { name: 'Auth Token', value: 'CAN…3210' },
    ];
    expect((await call(t(), 'PUT', `/provider/${bId}`, { token: b.token, body: { keys: aMasks } })).status).toBe(400);
    // fresh values seal again under B's context
    const fixed = await call(t(), 'PUT', `/provider/${bId}`, { token: b.token, body: { keys: bKeys } });
    expect(fixed.status).toBe(200);
    expect(await getProviderSecret(t().deps, b.companyId, 'twilio', 'Auth Token')).toBe('b-token-bbbbbbbbbbbbbbbb');
    // A is untouched
    expect(await getProviderSecret(t().deps, a.companyId, 'twilio', 'Auth Token')).toBe(TOKEN);
  });

  it('every provider connects with its own fields', async () => {
    const { token, companyId } = await signUp(t());
    for (const p of PROVIDERS) {
      const keys = p.fields.map((f, i) => ({ name: f.name, value: fieldValue(f, `${CANARY}-${p.name}-${i}-0123456789`) }));
      const res = await call(t(), 'POST', '/provider/values', { token, body: { name: p.name, keys } });
      expect(res.status, p.name).toBe(201);
      expect(res.body.msg).toBe(`${p.label} has been successfully connected.`);
      expect(await getProviderSecret(t().deps, companyId, p.name, p.fields[0]!.name)).toBe(keys[0]!.value);
    }
    const status = await call(t(), 'GET', '/provider', { token });
    expect(status.body.data.every((p: { connected: boolean }) => p.connected)).toBe(true);
  });

  it('update keeps a field sent back as its mask (or omitted) and replaces a changed one', async () => {
    const { token, companyId } = await signUp(t());
    const created = await call(t(), 'POST', '/provider/values', { token, body: { name: 'twilio', keys: twilioKeys() } });
    const id = created.body.provider._id as string;
    const masks = (await call(t(), 'GET', '/provider/fields?name=twilio', { token })).body.keys as {
      name: string;
      value: string;
    }[];

    const untouched = await call(t(), 'PUT', `/provider/${id}`, {
      token,
      body: { keys: masks.map(({ name, value }) => ({ name, value })) },
    });
    expect(untouched.status).toBe(200);
    expect(untouched.body.msg).toBe('Twilio has been updated.');
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Account SID')).toBe(SID);
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Auth Token')).toBe(TOKEN);

    const NEW_TOKEN = `${CANARY}-rotated-token-000111222`;
    const changed = await call(t(), 'PUT', `/provider/${id}`, {
      token,
      body: { keys: [masks[0], { name: 'Auth Token', value: NEW_TOKEN }] },
    });
    expect(changed.status).toBe(200);
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Account SID')).toBe(SID);
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Auth Token')).toBe(NEW_TOKEN);

    const omitted = await call(t(), 'PUT', `/provider/${id}`, {
      token,
      body: { keys: [{ name: 'Account SID', value: 'AC0000111122223333' }] },
    });
    expect(omitted.status).toBe(200);
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Account SID')).toBe('AC0000111122223333');
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Auth Token')).toBe(NEW_TOKEN);

    // a mask that is not the stored value's mask, an empty value, an unknown field: refused, nothing changes
    for (const keys of [
      [{ name: 'Auth Token', value: 'CAN…9999' }],
      [{ name: 'Auth Token', value: '' }],
      [{ name: 'Nope', value: TOKEN }],
    ]) {
      const res = await call(t(), 'PUT', `/provider/${id}`, { token, body: { keys } });
      expect(res.status).toBe(400);
    }
    expect(await getProviderSecret(t().deps, companyId, 'twilio', 'Auth Token')).toBe(NEW_TOKEN);
    expect((await call(t(), 'PUT', '/provider/twilio', { token, body: { keys: [] } })).status).toBe(404);
    expect((await call(t(), 'PUT', '/provider/0123456789abcdef01234567', { token, body: { keys: [] } })).status).toBe(404);
  });

  it('disconnects and forgets the secrets; a second disconnect is 404', async () => {
    const { token, companyId } = await signUp(t());
    await call(t(), 'POST', '/provider/values', { token, body: { name: 'openai', keys: [{ name: 'API Key', value: TOKEN }] } });
    const res = await call(t(), 'DELETE', '/provider/disconnect', { token, body: { name: 'openai' } });
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe('OpenAI has been disconnected.');
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'API Key')).toBeNull();
    expect((await call(t(), 'GET', '/provider/fields?name=openai', { token })).body.keys[0].value).toBe('');
    const again = await call(t(), 'DELETE', '/provider/disconnect', { token, body: { name: 'openai' } });
    expect(again.status).toBe(404);
    expect(again.body.msg).toBe('OpenAI is not connected.');
    expect((await call(t(), 'DELETE', '/provider/disconnect', { token, body: {} })).status).toBe(400);
    // connecting again after a disconnect works
    const back = await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'openai', keys: [{ name: 'API Key', value: TOKEN }] },
    });
    expect(back.status).toBe(201);
  });

  it('concurrent connects of the same provider create one connection', async () => {
    const { token } = await signUp(t());
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(t(), 'POST', '/provider/values', { token, body: { name: 'twilio', keys: twilioKeys() } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const rows = await t().deps.db.db.selectFrom('provider_connections').select('id').execute();
    expect(rows).toHaveLength(1);
  });

  it("isolates companies: B never sees or changes A's connection", async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const created = await call(t(), 'POST', '/provider/values', { token: a.token, body: { name: 'twilio', keys: twilioKeys() } });
    const id = created.body.provider._id as string;

    const bList = await call(t(), 'GET', '/user/providers?search=twilio', { token: b.token });
    expect(bList.body.providers[0]).toMatchObject({ _id: 'twilio', company: null, connected: false });
    expect((await call(t(), 'GET', '/provider?name=twilio', { token: b.token })).body.data[0].connected).toBe(false);
    expect(
      (await call(t(), 'GET', '/provider/fields?name=twilio', { token: b.token })).body.keys.map(
        (k: { value: string }) => k.value,
      ),
    ).toEqual(['', '']);
    const put = await call(t(), 'PUT', `/provider/${id}`, {
      token: b.token,
      body: { keys: twilioKeys('AC999', 'x'.repeat(20)) },
    });
    expect(put.status).toBe(404);
    // exactly like an id that does not exist
    const missing = await call(t(), 'PUT', '/provider/0123456789abcdef01234567', {
      token: b.token,
      body: { keys: twilioKeys('AC999', 'x'.repeat(20)) },
    });
    expect(put.body).toEqual(missing.body);
    expect(put.body).toEqual({ success: false, msg: 'Provider connection not found' });
    expect(JSON.stringify(bList.body)).not.toContain(id);
    expect(JSON.stringify(bList.body)).not.toContain(a.companyId);
    expect((await call(t(), 'DELETE', '/provider/disconnect', { token: b.token, body: { name: 'twilio' } })).status).toBe(404);
    expect(await getProviderSecret(t().deps, a.companyId, 'twilio', 'Auth Token')).toBe(TOKEN);
    // B connecting its own Twilio does not touch A's
    const own = await call(t(), 'POST', '/provider/values', {
      token: b.token,
      body: { name: 'twilio', keys: twilioKeys('ACbbbbbbbbbbbbbbbbbb', 'b-token-bbbbbbbbbbbbbbbb') },
    });
    expect(own.status).toBe(201);
    expect(own.body.provider._id).not.toBe(id);
    expect(await getProviderSecret(t().deps, a.companyId, 'twilio', 'Auth Token')).toBe(TOKEN);
    expect(await getProviderSecret(t().deps, b.companyId, 'twilio', 'Auth Token')).toBe('b-token-bbbbbbbbbbbbbbbb');
    expect((await call(t(), 'GET', '/provider/fields?name=twilio', { token: a.token })).body.keys[1].value).toBe('CAN…3210');
  });

  it('requires a session on every provider route', async () => {
    for (const [method, url] of [
      ['GET', '/user/providers'],
      ['GET', '/provider'],
      ['GET', '/provider/fields?name=twilio'],
      ['POST', '/provider/values'],
      ['PUT', '/provider/0123456789abcdef01234567'],
      ['DELETE', '/provider/disconnect'],
    ] as const) {
      const body = method === 'GET' ? undefined : { name: 'twilio', keys: twilioKeys() };
      expect((await call(t(), method, url, { body })).status, url).toBe(401);
    }
  });
});
