/**
 * Connect and Update try a card's credentials with the provider before saving (server/modules/providers/key-check.ts):
 * against the fakes (tests/fakes), which check the credentials as the real APIs do. Accepted: saved. Refused:
 * 400 with the provider's reason and the field it belongs to, nothing saved. Unreachable or 5xx: saved with
 * a warning.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROVIDER_NAMES } from '@contract/provider.js';
import { afterEach, describe, expect, it } from 'vitest';
import { keyCheckOf } from '../../../server/modules/providers/key-check.js';
import { runKeyCheck } from '../../../server/platform/net/key-check.js';
import { defaultProviderUrls } from '../../../server/voice/providers/registry.js';
import { startFakeAnthropic } from '../../fakes/anthropic.js';
import { CalcomFake } from '../../fakes/calcom.js';
import { CalendlyFake } from '../../fakes/calendly.js';
import { CartesiaFake } from '../../fakes/cartesia.js';
import { DeepgramFake } from '../../fakes/deepgram.js';
import { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import { startFakeOpenAi } from '../../fakes/openai.js';
import { PerplexityFake } from '../../fakes/perplexity.js';
import { PlivoFake } from '../../fakes/plivo.js';
import { TwilioFake } from '../../fakes/twilio.js';
import { WhatsAppFake } from '../../fakes/whatsapp.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from '../helpers.js';

type Keys = { name: string; value: string }[];

interface Case {
  name: string;
  /** where its base URL is configured */
  urls: 'provider' | 'telephony';
  start(): Promise<{ url: string; close(): Promise<void> | void; good: Keys; bad: Keys }>;
  /** the field a refusal of `bad` belongs to, and a part of the provider's reason */
  field: string;
  reason: RegExp;
}

const apiKey = (value: string): Keys => [{ name: 'API Key', value }];

const CASES: Case[] = [
  {
    name: 'openai',
    urls: 'provider',
    async start() {
      const f = await startFakeOpenAi();
      return { url: f.url, close: () => f.close(), good: apiKey(f.apiKey), bad: apiKey('sk-wrong-key-00000000000000') };
    },
    field: 'API Key',
    reason: /Incorrect API key provided/,
  },
  {
    name: 'anthropic',
    urls: 'provider',
    async start() {
      const f = await startFakeAnthropic();
      return { url: f.url, close: () => f.close(), good: apiKey(f.apiKey), bad: apiKey('sk-ant-wrong') };
    },
    field: 'API Key',
    reason: /invalid x-api-key/,
  },
  {
    name: 'deepgram',
    urls: 'provider',
    async start() {
      const f = await DeepgramFake.start();
      return { url: f.url, close: () => f.close(), good: apiKey(f.key), bad: apiKey('dg-wrong') };
    },
    field: 'API Key',
    reason: /Invalid credentials/,
  },
  {
    name: 'elevenlabs',
    urls: 'provider',
    async start() {
      const f = await ElevenLabsFake.start();
      return { url: f.url, close: () => f.close(), good: apiKey(f.key), bad: apiKey('xi-wrong') };
    },
    field: 'API Key',
    reason: /Invalid API key/,
  },
  {
    name: 'cartesia',
    urls: 'provider',
    async start() {
      const f = await CartesiaFake.start();
      return { url: f.url, close: () => f.close(), good: apiKey(f.key), bad: apiKey('sk_car_wrong') };
    },
    field: 'API Key',
    reason: /Invalid API key/,
  },
  {
    name: 'twilio',
    urls: 'telephony',
    async start() {
      const f = await TwilioFake.start();
      const keys = (sid: string, token: string) => [
        { name: 'Account SID', value: sid },
        { name: 'Auth Token', value: token },
      ];
      return {
        url: f.url,
        close: () => f.close(),
        good: keys(f.accountSid, f.authToken),
        bad: keys(f.accountSid, 'wrong-token'),
      };
    },
    field: 'Auth Token',
    reason: /20003/,
  },
  {
    name: 'plivo',
    urls: 'telephony',
    async start() {
      const f = await PlivoFake.start();
      const keys = (id: string, token: string) => [
        { name: 'Auth ID', value: id },
        { name: 'Auth Token', value: token },
      ];
      return { url: f.url, close: () => f.close(), good: keys(f.authId, f.authToken), bad: keys(f.authId, 'wrong-token') };
    },
    field: 'Auth Token',
    reason: /Plivo refused/,
  },
  {
    name: 'calcom',
    urls: 'provider',
    async start() {
      const f = await new CalcomFake('cal_live_good').start();
      return { url: f.url, close: () => f.close(), good: apiKey('cal_live_good'), bad: apiKey('cal_live_wrong') };
    },
    field: 'API Key',
    reason: /Invalid Access Token/,
  },
  {
    name: 'calendly',
    urls: 'provider',
    async start() {
      const f = await new CalendlyFake('pat-good').start();
      const pat = (value: string) => [{ name: 'Personal Access Token', value }];
      return { url: f.url, close: () => f.close(), good: pat('pat-good'), bad: pat('pat-wrong') };
    },
    field: 'Personal Access Token',
    reason: /access token is invalid/,
  },
  {
    name: 'perplexity',
    urls: 'provider',
    async start() {
      const f = await new PerplexityFake('pplx-good').start();
      return { url: f.url, close: () => f.close(), good: apiKey('pplx-good'), bad: apiKey('pplx-wrong') };
    },
    field: 'API Key',
    reason: /Invalid API key/,
  },
  {
    name: 'whatsapp',
    urls: 'provider',
    async start() {
      const f = await WhatsAppFake.start();
      const keys = (id: string, token: string) => [
        { name: 'Phone Number ID', value: id },
        { name: 'Access Token', value: token },
      ];
      return {
        url: f.url,
        close: () => f.close(),
        good: keys(f.phoneNumberId, f.accessToken),
        bad: keys(f.phoneNumberId, 'EAAGwrong'),
      };
    },
    field: 'Access Token',
    reason: /Invalid OAuth access token/,
  },
];

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: (await res.json()) as any };
}

/** Points the provider `name` at `url` (its API base, as the env variables do). */
function pointAt(t: TestApp, c: Pick<Case, 'name' | 'urls'>, url: string) {
  if (c.urls === 'telephony') t.deps.config.telephonyUrls = { ...t.deps.config.telephonyUrls, [c.name]: url };
  else t.deps.config.providerUrls = { ...t.deps.config.providerUrls, [c.name]: url };
}

/** An address where nothing listens (a port just closed). */
async function closedPort(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** A server that answers every request with `status`, or never when `status` is 0. */
async function answering(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer((_req, res) => {
    if (status) res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  };
}

describe('key checks', () => {
  it('every provider of the catalogue brings its check', async () => {
    const t = { deps: { config: { providerUrls: defaultProviderUrls() }, calls: undefined } };
    // biome-ignore lint/suspicious/noExplicitAny: only config and calls are read
    for (const name of PROVIDER_NAMES) expect(keyCheckOf(t.deps as any, name), name).toBeDefined();
  });

  it('gives up after its time limit: the provider could not say', async () => {
    const silent = await answering(0);
    const check = keyCheckOf(
      // biome-ignore lint/suspicious/noExplicitAny: only config and calls are read
      { config: { providerUrls: defaultProviderUrls() } } as any,
      'deepgram',
    )?.check;
    if (!check) throw new Error('no deepgram check');
    const started = Date.now();
    const outcome = await runKeyCheck(check, {
      baseUrl: silent.url,
      publicOnly: false,
      values: { 'API Key': 'k' },
      timeoutMs: 200,
    });
    expect(outcome).toEqual({ kind: 'unknown', why: 'timeout' });
    expect(Date.now() - started).toBeLessThan(4_000);
    await silent.close();
  });
});

describeEachDb('providers: Connect and Update try the key first', (kind) => {
  const t = useTestApp(kind);
  let closers: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    await Promise.all(closers.map((c) => c()));
    closers = [];
  });

  const connected = async (token: string, name: string) =>
    (await call(t(), 'GET', `/provider?name=${name}`, { token })).body.data[0].connected as boolean;

  for (const c of CASES) {
    it(`${c.name}: a key the provider accepts is saved; a refused one answers the reason under its field and saves nothing`, async () => {
      const fake = await c.start();
      closers.push(() => fake.close());
      pointAt(t(), c, fake.url);
      const { token } = await signUp(t());

      LOG_LINES.length = 0;
      const refused = await call(t(), 'POST', '/provider/values', { token, body: { name: c.name, keys: fake.bad } });
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toMatch(c.reason);
      expect(refused.body.errors?.[c.field]).toMatch(c.reason);
      expect(await connected(token, c.name)).toBe(false);
      // the key is in neither the answer nor the logs
      const secret = fake.bad.find((k) => k.value.includes('wrong'))?.value as string;
      expect(JSON.stringify(refused.body)).not.toContain(secret);
      expect(LOG_LINES.join('\n')).not.toContain(secret);

      const accepted = await call(t(), 'POST', '/provider/values', { token, body: { name: c.name, keys: fake.good } });
      expect(accepted.status).toBe(201);
      expect(accepted.body.warning).toBeUndefined();
      expect(await connected(token, c.name)).toBe(true);

      // an update with a refused key keeps the stored one
      const id = accepted.body.provider._id as string;
      const before = (await call(t(), 'GET', `/provider/fields?name=${c.name}`, { token })).body.keys;
      const update = await call(t(), 'PUT', `/provider/${id}`, { token, body: { keys: fake.bad } });
      expect(update.status).toBe(400);
      expect(update.body.errors?.[c.field]).toMatch(c.reason);
      expect((await call(t(), 'GET', `/provider/fields?name=${c.name}`, { token })).body.keys).toEqual(before);
      // the accepted key again: tried and saved
      expect((await call(t(), 'PUT', `/provider/${id}`, { token, body: { keys: fake.good } })).status).toBe(200);
    });
  }

  for (const name of ['openai', 'anthropic', 'deepgram', 'elevenlabs', 'twilio', 'plivo', 'calcom']) {
    const c = CASES.find((x) => x.name === name) as Case;
    it(`${name}: an unreachable provider saves the card with a warning`, async () => {
      pointAt(t(), c, await closedPort());
      const fake = await c.start();
      closers.push(() => fake.close());
      const { token } = await signUp(t());
      const res = await call(t(), 'POST', '/provider/values', { token, body: { name, keys: fake.bad } });
      expect(res.status).toBe(201);
      expect(res.body.warning).toMatch(/^Could not reach .+ to check the key; saved anyway\.$/);
      expect(await connected(token, name)).toBe(true);
    });
  }

  it('a provider answering 5xx saves the card with a warning that says so', async () => {
    const down = await answering(503);
    closers.push(() => down.close());
    pointAt(t(), { name: 'deepgram', urls: 'provider' }, down.url);
    const { token } = await signUp(t());
    const res = await call(t(), 'POST', '/provider/values', { token, body: { name: 'deepgram', keys: apiKey('dg-any') } });
    expect(res.status).toBe(201);
    expect(res.body.warning).toBe('Deepgram answered 503 to the key check; saved anyway.');
  });

  it('Twilio: an Account SID the token cannot read is refused under the Account SID', async () => {
    const c = CASES.find((x) => x.name === 'twilio') as Case;
    const fake = await TwilioFake.start();
    closers.push(() => fake.close());
    pointAt(t(), c, fake.url);
    const { token } = await signUp(t());
    const other = `AC${'0'.repeat(32)}`;
    const res = await call(t(), 'POST', '/provider/values', {
      token,
      body: {
        name: 'twilio',
        keys: [
          { name: 'Account SID', value: other },
          { name: 'Auth Token', value: fake.authToken },
        ],
      },
    });
    // Basic auth with another SID as user name: the credentials do not go together
    expect(res.status).toBe(400);
    expect(res.body.errors['Auth Token']).toMatch(/20003/);
  });

  it('WhatsApp: a Phone Number ID the token does not see is refused under the Phone Number ID', async () => {
    const fake = await WhatsAppFake.start();
    closers.push(() => fake.close());
    pointAt(t(), { name: 'whatsapp', urls: 'provider' }, fake.url);
    const { token } = await signUp(t());
    const keys = (id: string) => [
      { name: 'Phone Number ID', value: id },
      { name: 'Access Token', value: fake.accessToken },
    ];
    const unknown = await call(t(), 'POST', '/provider/values', { token, body: { name: 'whatsapp', keys: keys('123') } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors['Phone Number ID']).toMatch(/does not exist/);
  });

  it('an update that changes nothing is not tried again; an empty required field is refused before any check', async () => {
    const fake = await DeepgramFake.start();
    closers.push(() => fake.close());
    pointAt(t(), { name: 'deepgram', urls: 'provider' }, fake.url);
    const { token } = await signUp(t());
    const saved = await call(t(), 'POST', '/provider/values', { token, body: { name: 'deepgram', keys: apiKey(fake.key) } });
    expect(saved.status).toBe(201);
    // the key changes at Deepgram: an untouched card still saves (nothing to try)
    fake.key = 'rotated';
    const mask = (await call(t(), 'GET', '/provider/fields?name=deepgram', { token })).body.keys[0].value;
    const same = await call(t(), 'PUT', `/provider/${saved.body.provider._id}`, { token, body: { keys: apiKey(mask) } });
    expect(same.status).toBe(200);
    const empty = await call(t(), 'PUT', `/provider/${saved.body.provider._id}`, { token, body: { keys: apiKey('') } });
    expect(empty.status).toBe(400);
    expect(empty.body.errors['API Key']).toBe('A value is required');
  });
});
