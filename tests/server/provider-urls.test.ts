import { expect, it } from 'vitest';
import { ProviderKeyMissingError, providerAccess } from '../../server/modules/providers/call-keys.js';
import { getProviderSecret } from '../../server/modules/providers/provider.store.js';
import { defaultProviderUrls } from '../../server/voice/providers/registry.js';
import { modelPurpose, providerPurpose } from '../../src/api/contract/provider-keys.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

const KEY = 'sk-proj-test-0123456789abcdefghij';

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: (await res.json()) as any };
}

const openai = (baseUrl?: string) => ({
  name: 'openai',
  keys: [{ name: 'API Key', value: KEY }, ...(baseUrl === undefined ? [] : [{ name: 'Base URL', value: baseUrl }])],
});

describeEachDb('providers: Anthropic card and the OpenAI Base URL', (kind) => {
  const t = useTestApp(kind);

  it('Anthropic connects with its API key', async () => {
    const { token, companyId } = await signUp(t());
    const fields = await call(t(), 'GET', '/provider/fields?name=anthropic', { token });
    expect(fields.body).toMatchObject({
      name: 'anthropic',
      label: 'Anthropic',
      keys: [{ name: 'API Key', value: '', secret: true }],
    });
    const res = await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'anthropic', keys: [{ name: 'API Key', value: 'sk-ant-api03-0123456789abcdef' }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.msg).toBe('Anthropic has been successfully connected.');
    expect(await getProviderSecret(t().deps, companyId, 'anthropic', 'API Key')).toBe('sk-ant-api03-0123456789abcdef');
  });

  it('OpenAI connects without a Base URL: the optional field is never missing', async () => {
    const { token, companyId } = await signUp(t());
    for (const body of [openai(), openai('')]) {
      const res = await call(t(), 'POST', '/provider/values', { token, body });
      expect(res.status).toBe(201);
      await call(t(), 'DELETE', '/provider/disconnect', { token, body: { name: 'openai' } });
    }
    expect((await call(t(), 'POST', '/provider/values', { token, body: openai() })).status).toBe(201);
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'Base URL')).toBeNull();
    const fields = await call(t(), 'GET', '/provider/fields?name=openai', { token });
    expect(fields.body.keys[1]).toEqual({ name: 'Base URL', value: '', secret: false, optional: true, url: true });
    // the API key stays required
    const noKey = await call(t(), 'PUT', `/provider/${fields.body._id}`, {
      token,
      body: { keys: [{ name: 'API Key', value: '' }] },
    });
    expect(noKey.status).toBe(400);
  });

  it.each([
    [
      'http://localhost:11434/v1',
      'Base URL: localhost resolves to a loopback address. Only public internet addresses are allowed here.',
    ],
    ['http://127.0.0.1:8000', 'Base URL: 127.0.0.1 is a loopback address. Only public internet addresses are allowed here.'],
    ['http://[::1]:8000/v1', 'Base URL: [::1] is a loopback address. Only public internet addresses are allowed here.'],
    ['http://10.0.0.5:8000', 'Base URL: 10.0.0.5 is a private address. Only public internet addresses are allowed here.'],
    ['https://192.168.1.20', 'Base URL: 192.168.1.20 is a private address. Only public internet addresses are allowed here.'],
    [
      'http://169.254.169.254',
      'Base URL: 169.254.169.254 is a link-local address. Only public internet addresses are allowed here.',
    ],
    [
      'http://[::ffff:127.0.0.1]',
      'Base URL: [::ffff:7f00:1] is a loopback address. Only public internet addresses are allowed here.',
    ],
    ['http://2130706433/', 'Base URL: 127.0.0.1 is a loopback address. Only public internet addresses are allowed here.'],
    ['ftp://llm.example.com', 'Base URL: Enter an http:// or https:// URL without user name, query or fragment'],
    ['https://user:pw@8.8.8.8', 'Base URL: Enter an http:// or https:// URL without user name, query or fragment'],
    ['not a url', 'Base URL: Enter an http:// or https:// URL without user name, query or fragment'],
  ])('refuses the Base URL %s with a clear 400, and connects nothing', async (url, msg) => {
    const { token } = await signUp(t());
    const res = await call(t(), 'POST', '/provider/values', { token, body: openai(url) });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe(msg);
    expect(res.body.errors['Base URL']).toBeTruthy();
    expect((await call(t(), 'GET', '/provider?name=openai', { token })).body.data[0].connected).toBe(false);
  });

  it('saves a public Base URL normalised; on update a mask keeps it, a private one is refused, empty removes it', async () => {
    const { token, companyId } = await signUp(t());
    const created = await call(t(), 'POST', '/provider/values', { token, body: openai('https://8.8.8.8/v1/') });
    expect(created.status).toBe(201);
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'Base URL')).toBe('https://8.8.8.8');
    const id = created.body.provider._id as string;
    const masks = (await call(t(), 'GET', '/provider/fields?name=openai', { token })).body.keys as {
      name: string;
      value: string;
    }[];
    expect(masks[1]?.value).toBe('••••.8.8');

    expect(
      (await call(t(), 'PUT', `/provider/${id}`, { token, body: { keys: masks.map(({ name, value }) => ({ name, value })) } }))
        .status,
    ).toBe(200);
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'Base URL')).toBe('https://8.8.8.8');

    const refused = await call(t(), 'PUT', `/provider/${id}`, {
      token,
      body: { keys: [{ name: 'Base URL', value: 'http://localhost:11434' }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toContain('loopback');
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'Base URL')).toBe('https://8.8.8.8');

    const removed = await call(t(), 'PUT', `/provider/${id}`, { token, body: { keys: [{ name: 'Base URL', value: '' }] } });
    expect(removed.status).toBe(200);
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'Base URL')).toBeNull();
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'API Key')).toBe(KEY);
  });

  it('accepts a private Base URL when the server allows private provider URLs', async () => {
    t().deps.config.allowPrivateProviderUrls = true;
    const { token, companyId } = await signUp(t());
    const res = await call(t(), 'POST', '/provider/values', { token, body: openai('http://localhost:11434/v1') });
    expect(res.status).toBe(201);
    expect(await getProviderSecret(t().deps, companyId, 'openai', 'Base URL')).toBe('http://localhost:11434');
  });

  it('providerAccess: the decrypted key and where to reach the provider; a company URL wins and is public-only', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    t().deps.config.providerUrls = {
      ...defaultProviderUrls(),
      openai: 'http://127.0.0.1:4010',
      anthropic: 'http://127.0.0.1:4011',
    };
    await call(t(), 'POST', '/provider/values', { token: a.token, body: openai() });
    expect(await providerAccess(t().deps, a.companyId, 'openai', 'GPT 4o')).toEqual({
      apiKey: KEY,
      baseUrl: 'http://127.0.0.1:4010',
      publicOnly: false,
    });
    await call(t(), 'POST', '/provider/values', { token: b.token, body: openai('https://8.8.8.8/openai/v1') });
    expect(await providerAccess(t().deps, b.companyId, 'openai', 'GPT 4o')).toEqual({
      apiKey: KEY,
      baseUrl: 'https://8.8.8.8/openai',
      publicOnly: true,
    });
    t().deps.config.allowPrivateProviderUrls = true;
    expect((await providerAccess(t().deps, b.companyId, 'openai', 'GPT 4o')).publicOnly).toBe(false);

    await call(t(), 'POST', '/provider/values', {
      token: a.token,
      body: { name: 'anthropic', keys: [{ name: 'API Key', value: 'sk-ant-a' }] },
    });
    expect(await providerAccess(t().deps, a.companyId, 'anthropic', 'Claude')).toEqual({
      apiKey: 'sk-ant-a',
      baseUrl: 'http://127.0.0.1:4011',
      publicOnly: false,
    });
  });

  it('providerAccess: a provider not connected (here or only by another company) names the provider to connect', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    await call(t(), 'POST', '/provider/values', {
      token: a.token,
      body: { name: 'anthropic', keys: [{ name: 'API Key', value: 'sk-ant-a' }] },
    });
    const missing = await providerAccess(t().deps, b.companyId, 'anthropic', modelPurpose('claude-3.5-sonnet')).catch((e) => e);
    expect(missing).toBeInstanceOf(ProviderKeyMissingError);
    expect(missing.toProblem()).toEqual({
      provider: 'anthropic',
      message: 'Connect Anthropic on the Providers page to use Claude 3.5 Sonnet',
      link: '/dashboard/providers',
    });
    const gpt = await providerAccess(t().deps, a.companyId, 'openai', modelPurpose('gpt-4o')).catch((e) => e);
    expect(gpt.message).toBe('Connect OpenAI on the Providers page to use GPT 4o');
    const dg = await providerAccess(t().deps, a.companyId, 'deepgram', providerPurpose('deepgram', ['stt'])).catch((e) => e);
    expect(dg.message).toBe('Connect Deepgram on the Providers page to use speech recognition');
  });

  it('providerAccess: a stored key that no longer opens asks for it again', async () => {
    const { token, companyId } = await signUp(t());
    await call(t(), 'POST', '/provider/values', { token, body: openai() });
    t().deps.secrets = { ...t().deps.secrets, masterKey: new Uint8Array(32).fill(7) };
    const e = await providerAccess(t().deps, companyId, 'openai', 'GPT 4o').catch((err) => err);
    expect(e).toBeInstanceOf(ProviderKeyMissingError);
    expect(e.message).toBe('The OpenAI key can no longer be read. Enter it again on the Providers page.');
  });
});
