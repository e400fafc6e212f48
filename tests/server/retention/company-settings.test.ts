import { COMPANY_SETTINGS_DEFAULTS } from '@contract/data-storage.js';
import { expect, it } from 'vitest';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: (await res.json()) as any };
}

describeEachDb('company settings', (kind) => {
  const t = useTestApp(kind);

  it('answers the defaults, saves either field, and keeps each company its own', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const first = await call(t(), 'GET', '/company/settings', { token: a.token });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual(COMPANY_SETTINGS_DEFAULTS);

    const put = await call(t(), 'PUT', '/company/settings', { token: a.token, body: { retention_days: 30 } });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ retention_days: 30, default_data_storage: 'everything' });
    const put2 = await call(t(), 'PUT', '/company/settings', {
      token: a.token,
      body: { default_data_storage: 'metadata_only' },
    });
    expect(put2.body.data).toEqual({ retention_days: 30, default_data_storage: 'metadata_only' });
    expect((await call(t(), 'GET', '/company/settings', { token: a.token })).body.data).toEqual(put2.body.data);
    // another company is untouched
    expect((await call(t(), 'GET', '/company/settings', { token: b.token })).body.data).toEqual(COMPANY_SETTINGS_DEFAULTS);

    // back to keep
    const keep = await call(t(), 'PUT', '/company/settings', { token: a.token, body: { retention_days: null } });
    expect(keep.body.data.retention_days).toBeNull();
  });

  it("a new agent gets the company's default data storage unless its creator chose one", async () => {
    const a = await signUp(t());
    await call(t(), 'PUT', '/company/settings', { token: a.token, body: { default_data_storage: 'everything_but_pii' } });
    const list = await call(t(), 'GET', '/agent', { token: a.token });
    const sample = (await call(t(), 'GET', `/agent/${list.body.data.agents[0]._id}`, { token: a.token })).body.data.agent;
    const { editor } = sample;
    const { dataStorage: _level, sensitiveDataStorage: _old, ...unchosen } = editor;
    const create = async (ed: Record<string, unknown>) => {
      const res = await call(t(), 'POST', '/agent', {
        token: a.token,
        body: { name: 'New', prompt: sample.prompt, message: sample.message, settings: sample.settings, editor: ed },
      });
      expect(res.status).toBe(201);
      return res.body.data.agent.editor.dataStorage;
    };
    expect(await create(unchosen)).toBe('everything_but_pii');
    expect(await create({ ...unchosen, dataStorage: 'everything' })).toBe('everything');
    expect(await create({ ...unchosen, dataStorage: 'metadata_only' })).toBe('metadata_only');
  });

  it('refuses invalid settings with 400 and changes nothing', async () => {
    const a = await signUp(t());
    await call(t(), 'PUT', '/company/settings', { token: a.token, body: { retention_days: 90 } });
    for (const body of [
      {},
      { retention_days: 0 },
      { retention_days: 1.5 },
      { retention_days: 100000 },
      { retention_days: '30' },
      { default_data_storage: 'all' },
    ]) {
      const res = await call(t(), 'PUT', '/company/settings', { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(t(), 'GET', '/company/settings', { token: a.token })).body.data).toEqual({
      retention_days: 90,
      default_data_storage: 'everything',
    });
    expect((await call(t(), 'GET', '/company/settings')).status).toBe(401);
  });
});
