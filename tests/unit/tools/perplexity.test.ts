import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PERPLEXITY_NOT_CONNECTED, webSearch } from '../../../server/voice/tools/perplexity/index.js';
import { toolKindOf } from '../../../server/voice/tools/registry.js';
import type { ToolEnv } from '../../../server/voice/tools/types.js';
import { PerplexityFake } from '../../fakes/perplexity.js';
import { access, toolEnv } from './tool-env.js';

const NOW = new Date('2026-12-07T17:00:00Z');
const KEY = 'pplx-0123456789abcdef';
const fn: AgentFunctionOf<'web_search'> = {
  id: 1,
  type: 'web_search',
  name: 'web_search',
  description: '',
  speak_during: '',
  timeout_ms: 8000,
};

async function run(args: Record<string, unknown>, env: ToolEnv) {
  const [tool] = await webSearch.prepare(fn, env);
  if (!tool) throw new Error('no tool');
  return tool.run(args, env);
}

describe('web_search against the Perplexity fake', () => {
  let pplx: PerplexityFake;
  let env: ToolEnv;
  beforeEach(async () => {
    pplx = await new PerplexityFake(KEY).start();
    env = toolEnv(NOW, { perplexity: access(KEY, pplx.url) });
  });
  afterEach(() => pplx.close());

  it('is registered and takes one query', async () => {
    expect(toolKindOf('web_search')).toBe(webSearch);
    const [tool] = await webSearch.prepare(fn, env);
    expect(tool?.spec.parameters).toMatchObject({ required: ['query'] });
  });

  it('asks POST /chat/completions with the key, model sonar and the question; answers the text and numbered sources', async () => {
    const out = await run({ query: 'How tall is the Eiffel Tower?' }, env);
    const req = pplx.requests[0];
    expect(req?.path).toBe('/chat/completions');
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.body).toMatchObject({
      model: 'sonar',
      messages: [{ role: 'system' }, { role: 'user', content: 'How tall is the Eiffel Tower?' }],
    });
    expect(out).toEqual({
      ok: true,
      result:
        'The Eiffel Tower is 330 metres tall [1][2].\n\nSources:\n' +
        '[1] Eiffel Tower - Wikipedia - https://en.wikipedia.org/wiki/Eiffel_Tower\n' +
        '[2] Official site - https://www.toureiffel.paris/en',
    });
  });

  it('an empty query is refused without a request', async () => {
    expect((await run({ query: '  ' }, env)).ok).toBe(false);
    expect(pplx.requests).toHaveLength(0);
  });

  it('a refused key, a rate limit and an oversized answer are short failures', async () => {
    const wrong = await run({ query: 'q' }, toolEnv(NOW, { perplexity: access('pplx-wrong', pplx.url) }));
    expect(wrong).toEqual({
      ok: false,
      result: 'Perplexity refused the key (401): the Perplexity card on the Providers page needs a valid key',
    });
    pplx.throttleNext();
    expect(await run({ query: 'q' }, env)).toEqual({
      ok: false,
      result: 'Perplexity is limiting requests right now (429): try again in a moment',
    });
    pplx.answer = { content: 'x'.repeat(300 * 1024), results: [] };
    expect(await run({ query: 'q' }, env)).toEqual({ ok: false, result: "Perplexity's answer was too large" });
  });

  it('answers "not connected" when the company has no Perplexity key', async () => {
    expect(await run({ query: 'q' }, toolEnv(NOW, {}))).toEqual({ ok: false, result: PERPLEXITY_NOT_CONNECTED });
    expect(pplx.requests).toHaveLength(0);
  });
});

describe('the Perplexity fake refuses what Perplexity refuses', () => {
  let pplx: PerplexityFake;
  beforeEach(async () => {
    pplx = await new PerplexityFake(KEY).start();
  });
  afterEach(() => pplx.close());

  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${pplx.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const good = { model: 'sonar', messages: [{ role: 'user', content: 'q' }] };

  it('no key: 401; an unknown model or no user message: 400', async () => {
    expect((await post({}, good)).status).toBe(401);
    const auth = { authorization: `Bearer ${KEY}` };
    const model = await post(auth, { ...good, model: 'gpt-4o' });
    expect(model.status).toBe(400);
    expect(((await model.json()) as { error: { type: string } }).error.type).toBe('invalid_model');
    expect((await post(auth, { model: 'sonar', messages: [] })).status).toBe(400);
    expect((await post(auth, good)).status).toBe(200);
  });
});
