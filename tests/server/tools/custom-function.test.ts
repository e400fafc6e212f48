import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sealHeaderValue } from '../../../server/voice/tools/custom/headers.js';
import { customTool } from '../../../server/voice/tools/custom/index.js';
import { CustomerApi } from '../../fakes/customer-api.js';
import { COMPANY, fnOf, toolDeps, toolEnv } from './tool-env.js';

const SECRET = 'whsec_test_secret';
let api: CustomerApi;
beforeAll(async () => {
  api = await CustomerApi.start();
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests = [];
  api.secret = SECRET;
  api.mode = 'ok';
  api.bigAborted = false;
});

/** Private addresses allowed: the fake listens on 127.0.0.1. */
const deps = toolDeps({ allowPrivateToolUrls: true });

async function run(input: Record<string, unknown>, args: Record<string, unknown>, env = toolEnv(deps, SECRET)) {
  const fn = fnOf({ type: 'custom', url: `${api.url}/book`, ...input });
  const [tool] = await customTool.prepare(fn, env);
  return tool!.run(args, env);
}

describe('custom function', () => {
  it('offers the function with its parameters', async () => {
    const parameters = { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] };
    const fn = fnOf({ type: 'custom', name: 'book_table', description: 'Books a table', url: api.url, parameters });
    const [tool] = await customTool.prepare(fn, toolEnv(deps, SECRET));
    expect(tool!.spec).toEqual({ name: 'book_table', description: 'Books a table', parameters });
  });

  it('POSTs {name, args, call} signed like a webhook, which the API verifies', async () => {
    const out = await run({ name: 'book_table' }, { party: 4, day: 'Friday' });
    expect(out).toEqual({ ok: true, result: JSON.stringify({ ok: true, echo: { party: 4, day: 'Friday' } }) });
    const [req] = api.requests;
    expect(req!.verified).toBe(true);
    expect(req!.method).toBe('POST');
    expect(JSON.parse(req!.body)).toEqual({
      name: 'book_table',
      args: { party: 4, day: 'Friday' },
      call: {
        call_id: 'call_1',
        agent_id: 'agent_1',
        type: 'web_call',
        from_number: null,
        to_number: null,
        dynamic_variables: { customer_name: 'Ada' },
      },
    });
  });

  it('PUT, PATCH and DELETE send the same JSON body', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const out = await run({ method }, { id: 'r1' });
      expect(out.ok, method).toBe(true);
    }
    expect(api.requests.map((r) => [r.method, r.verified])).toEqual([
      ['PUT', true],
      ['PATCH', true],
      ['DELETE', true],
    ]);
  });

  it('GET sends the args as query parameters and signs the empty body', async () => {
    const fn = { method: 'GET', url: `${api.url}/slots?shop=north` };
    const out = await run(fn, { day: 'Friday', party: 4, tags: ['a', 'b'], vip: true });
    expect(out.ok).toBe(true);
    const [req] = api.requests;
    expect(req!.verified).toBe(true);
    expect(req!.body).toBe('');
    expect([...req!.query]).toEqual([
      ['shop', 'north'],
      ['day', 'Friday'],
      ['party', '4'],
      ['tags', 'a'],
      ['tags', 'b'],
      ['vip', 'true'],
    ]);
  });

  it('a wrong signing secret is refused by the API with 401: ok false for the model', async () => {
    api.secret = 'whsec_other';
    const out = await run({}, {});
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.result)).toMatchObject({ status: 401 });
  });

  it('an old signature (clock 10 minutes behind) is refused', async () => {
    const late = { ...deps, clock: { now: () => new Date(Date.now() - 600_000) } };
    const out = await run({}, {}, toolEnv(late, SECRET));
    expect(out.ok).toBe(false);
    expect(api.requests[0]!.verified).toBe(false);
  });

  it('sends the function headers decrypted, and cannot override the signature', async () => {
    const headers = [
      { name: 'Authorization', value: sealHeaderValue(deps.secrets.masterKey, COMPANY, 'Bearer sk_live_123') },
      { name: 'X-Parley-Signature', value: sealHeaderValue(deps.secrets.masterKey, COMPANY, 'forged') },
      { name: 'X-Empty', value: '' },
    ];
    const out = await run({ headers }, {});
    expect(out.ok).toBe(true);
    const [req] = api.requests;
    expect(req!.headers.authorization).toBe('Bearer sk_live_123');
    expect(req!.headers['x-parley-signature']).not.toBe('forged');
    expect(req!.headers['x-empty']).toBeUndefined();
  });

  it('a header sealed for another company does not open: an error for the model, not the value', async () => {
    const headers = [{ name: 'Authorization', value: sealHeaderValue(deps.secrets.masterKey, 'company-b', 'Bearer x') }];
    await expect(run({ headers }, {})).rejects.toThrow(/Authorization header of this function could not be read/);
    expect(api.requests).toHaveLength(0);
  });

  it('a private URL is refused without the flag, and reached with it', async () => {
    const strict = toolDeps();
    const out = await run({}, {}, toolEnv(strict, SECRET));
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.result).error).toMatch(/refused.*loopback/);
    expect(api.requests).toHaveLength(0);
    const fn = fnOf({ type: 'custom', url: `${api.url}/book` });
    expect(await customTool.check!(fn, strict)).toMatch(/URL refused: 127\.0\.0\.1 is a loopback address/);
    expect(await customTool.check!(fn, deps)).toBeNull();
    expect((await run({}, {})).ok).toBe(true);
  });

  it('a redirect is not followed', async () => {
    api.mode = 'redirect';
    api.redirectTo = `${api.url}/elsewhere`;
    const out = await run({}, {});
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.result)).toMatchObject({ status: 302 });
    expect(api.requests.map((r) => r.path)).toEqual(['/book']);
  });

  it('a 5xx is ok false with the status and a short excerpt', async () => {
    api.mode = 'error';
    api.errorStatus = 503;
    const out = await run({}, {});
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.result)).toEqual({
      error: "The function's server answered HTTP 503",
      status: 503,
      body: 'The booking system is down for maintenance.',
    });
  });

  it('a text answer is given as text; JSON that is not JSON is an error', async () => {
    api.mode = 'text';
    expect(await run({}, {})).toEqual({ ok: true, result: 'The table for 4 is booked at 7 pm.' });
    api.mode = 'notJson';
    const bad = await run({}, {});
    expect(bad.ok).toBe(false);
    expect(JSON.parse(bad.result).error).toBe('The function answered invalid JSON');
  });

  it('a huge answer is read only up to 64 KB and the cut said', async () => {
    api.mode = 'big';
    api.bigBytes = 8 * 1024 * 1024;
    const out = await run({}, {});
    expect(out.ok).toBe(true);
    expect(out.result.length).toBeLessThan(64 * 1024 + 200);
    expect(out.result).toMatch(/was cut\]$/);
    await expect.poll(() => api.bigAborted).toBe(true);
  });

  it('past timeout_ms the model is told the function did not answer', async () => {
    api.mode = 'slow';
    api.delayMs = 5_000;
    const out = await run({ timeout_ms: 1_000 }, {});
    expect(out).toEqual({ ok: false, result: JSON.stringify({ error: 'The function did not answer within 1000 ms' }) });
  });

  it("the call's signal aborts the request and the abort is thrown", async () => {
    api.mode = 'slow';
    api.delayMs = 5_000;
    const ac = new AbortController();
    const pending = run({}, {}, toolEnv(deps, SECRET, { signal: ac.signal }));
    await expect.poll(() => api.requests.length).toBe(1);
    ac.abort(new DOMException('barge-in', 'AbortError'));
    await expect(pending).rejects.toThrow('barge-in');
  });

  it('an unreachable server is ok false', async () => {
    const out = await run({ url: 'http://127.0.0.1:9/x' }, {});
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.result).error).toMatch(/could not be reached/);
  });

  it('check refuses parameters that are not JSON Schema', async () => {
    const fn = fnOf({ type: 'custom', url: api.url, parameters: { type: 'object', properties: { a: { type: 'strin' } } } });
    expect(await customTool.check!(fn, deps)).toMatch(/parameters are not a valid JSON Schema/);
  });
});
