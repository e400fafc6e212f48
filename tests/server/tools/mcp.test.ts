import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sealHeaderValue } from '../../../server/voice/tools/custom/headers.js';
import { MAX_ANSWER_BYTES, MAX_TOOLS, mcpTool, offeredName } from '../../../server/voice/tools/mcp/index.js';
import type { PreparedTool } from '../../../server/voice/tools/types.js';
import { DEFAULT_MCP_TOOLS, FakeMcpServer } from '../../fakes/mcp-server.js';
import { COMPANY, fnOf, toolDeps, toolEnv } from './tool-env.js';

let mcp: FakeMcpServer;
beforeAll(async () => {
  mcp = await FakeMcpServer.start();
});
afterAll(() => mcp.close());
beforeEach(() => {
  mcp.requests = [];
  mcp.methods = [];
  mcp.tools = DEFAULT_MCP_TOOLS;
  mcp.cancelled = 0;
  mcp.ended = 0;
  mcp.pageSize = 2;
});

const deps = toolDeps({ allowPrivateToolUrls: true });
const auth = (token = mcp.token) => [
  { name: 'Authorization', value: sealHeaderValue(deps.secrets.masterKey, COMPANY, `Bearer ${token}`) },
];

async function prepare(input: Record<string, unknown> = {}, env = toolEnv(deps, '')) {
  const fn = fnOf({ type: 'mcp', name: 'shop', url: mcp.url, headers: auth(), ...input });
  return mcpTool.prepare(fn, env);
}
const closeAll = (tools: PreparedTool[]) => Promise.all(tools.map((t) => t.close?.()));

describe('MCP server', () => {
  it('lists every page of tools and offers them as <function>__<tool> with their input schemas', async () => {
    const tools = await prepare();
    expect(tools.map((t) => t.spec.name)).toEqual([
      'shop__lookup_order',
      'shop__cancel_order',
      'shop__store_hours',
      'shop__slow_search',
      'shop__weird_name_with_spaces',
    ]);
    expect(tools[0]!.spec).toEqual({
      name: 'shop__lookup_order',
      description: 'Finds an order by its number',
      parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    });
    // three pages of two
    expect(mcp.methods.filter((m) => m === 'tools/list')).toHaveLength(3);
    expect(mcp.requests.every((r) => r.authorized)).toBe(true);
    await closeAll(tools);
    expect(mcp.ended).toBe(1);
    expect(mcp.sessions.size).toBe(0);
  });

  it('keeps only allowed_tools', async () => {
    const tools = await prepare({ allowed_tools: ['store_hours', 'lookup_order', 'not_there'] });
    expect(tools.map((t) => t.spec.name)).toEqual(['shop__lookup_order', 'shop__store_hours']);
    await closeAll(tools);
  });

  it('runs tools/call: text parts joined, isError is ok false', async () => {
    const tools = await prepare();
    const env = toolEnv(deps, '');
    const byName = (n: string) => tools.find((t) => t.spec.name === n)!;
    expect(await byName('shop__lookup_order').run({ order: '42' }, env)).toEqual({
      ok: true,
      result: 'Order 42 ships on Friday.',
    });
    expect(await byName('shop__store_hours').run({}, env)).toEqual({ ok: true, result: 'Mon-Fri 9-17.\nClosed on weekends.' });
    expect(await byName('shop__cancel_order').run({ order: '42' }, env)).toEqual({
      ok: false,
      result: 'Order 42 has already shipped.',
    });
    expect(mcp.methods.filter((m) => m === 'tools/call')).toHaveLength(3);
    await closeAll(tools);
  });

  it("the call's signal cancels a running tools/call", async () => {
    const tools = await prepare({ allowed_tools: ['slow_search'] });
    const ac = new AbortController();
    const pending = tools[0]!.run({}, toolEnv(deps, '', { signal: ac.signal }));
    await expect.poll(() => mcp.methods.includes('tools/call')).toBe(true);
    ac.abort(new DOMException('barge-in', 'AbortError'));
    await expect(pending).rejects.toThrow('barge-in');
    await expect.poll(() => mcp.cancelled).toBe(1);
    await closeAll(tools);
  });

  it('a wrong token is refused by the server: prepare fails with a reason, never the token', async () => {
    const fn = fnOf({ type: 'mcp', name: 'shop', url: mcp.url, headers: auth('wrong_token') });
    const err = await mcpTool.prepare(fn, toolEnv(deps, '')).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/401/);
    expect((err as Error).message).not.toContain('wrong_token');
    expect(mcp.requests.some((r) => r.authorized)).toBe(false);
  });

  it('a private URL is refused before connecting without the flag', async () => {
    const strict = toolDeps();
    const fn = fnOf({ type: 'mcp', name: 'shop', url: mcp.url, headers: [] });
    await expect(mcpTool.prepare(fn, toolEnv(strict, ''))).rejects.toThrow(/refused.*loopback/);
    expect(mcp.requests).toHaveLength(0);
    expect(await mcpTool.check!(fn, strict)).toMatch(/URL refused/);
    expect(await mcpTool.check!(fn, deps)).toBeNull();
  });

  it('caps the number of tools taken from a server', async () => {
    mcp.pageSize = 50;
    mcp.tools = Array.from({ length: MAX_TOOLS + 10 }, (_, i) => ({ ...DEFAULT_MCP_TOOLS[2]!, name: `t${i}` }));
    const tools = await prepare();
    expect(tools).toHaveLength(MAX_TOOLS);
    await closeAll(tools);
  });

  it('past timeout_ms the model is told the server did not answer in time', async () => {
    const tools = await prepare({ allowed_tools: ['slow_search'], timeout_ms: 1_000 });
    expect(await tools[0]!.run({}, toolEnv(deps, ''))).toEqual({
      ok: false,
      result: JSON.stringify({ error: 'The MCP server did not answer in time' }),
    });
    await closeAll(tools);
  });

  it('an answer larger than MAX_ANSWER_BYTES is not read: an error for the model', async () => {
    mcp.tools = [
      {
        ...DEFAULT_MCP_TOOLS[2]!,
        name: 'huge',
        run: async () => ({ content: [{ type: 'text', text: 'x'.repeat(MAX_ANSWER_BYTES + 1000) }] }),
      },
    ];
    const tools = await prepare();
    const out = await tools[0]!.run({}, toolEnv(deps, ''));
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.result).error).toMatch(/larger than/);
    await closeAll(tools);
  });

  it('tool names are cut to 64 valid characters', () => {
    expect(offeredName('shop', 'a.b c')).toBe('shop__a_b_c');
    expect(offeredName('f'.repeat(60), 'tool')).toHaveLength(64);
  });
});
