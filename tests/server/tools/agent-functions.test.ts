import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { LOAD_TOOLS_LIMIT } from '../../../server/modules/agents/agent.routes.js';
import { agentForTest } from '../../../server/modules/conversations/runtime.js';
import { openHeaders } from '../../../server/voice/tools/custom/headers.js';
import { customTool } from '../../../server/voice/tools/custom/index.js';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../../src/api/contract/agent/editor-form.js';
import { type AgentFunction, SECRET_MASK } from '../../../src/api/contract/agent/functions.js';
import type { Agent } from '../../../src/api/contract/agent/responses.js';
import { CustomerApi } from '../../fakes/customer-api.js';
import { FakeMcpServer } from '../../fakes/mcp-server.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { toolEnv } from './tool-env.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
type Body = any;

const RAW = 'Bearer sk_live_raw_value_123';
let mcp: FakeMcpServer;
let api: CustomerApi;
beforeAll(async () => {
  mcp = await FakeMcpServer.start();
  api = await CustomerApi.start();
});
afterAll(async () => {
  await mcp.close();
  await api.close();
});

/** Every answer of the test, to check no raw header value is ever in one. */
let answers: string[] = [];
beforeEach(() => {
  answers = [];
});

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: JSON.parse(text) as Body };
}

function payload(functions: unknown[]) {
  const p = editorFormToSavePayload({
    ...AGENT_EDITOR_FORM_DEFAULTS,
    voice: 'Rachel',
    voiceId: 'voice-a',
    agentName: 'Tools',
  }) as Body;
  p.editor.functions = functions;
  return p;
}

const custom = (over: Record<string, unknown> = {}) => ({
  id: 1,
  type: 'custom',
  name: 'book_table',
  description: 'Books a table',
  url: 'https://api.example.com/book',
  method: 'POST',
  headers: [
    { name: 'Authorization', value: RAW },
    { name: 'X-Shop', value: 'north' },
  ],
  ...over,
});
const mcpFn = (over: Record<string, unknown> = {}) => ({
  id: 2,
  type: 'mcp',
  name: 'shop',
  url: 'https://mcp.example.com/mcp',
  headers: [{ name: 'Authorization', value: `Bearer ${mcp.token}` }],
  ...over,
});

const storedDoc = async (t: TestApp, id: string) =>
  JSON.parse((await t.deps.db.db.selectFrom('agents').select('doc').where('id', '=', id).executeTakeFirstOrThrow()).doc);

describeEachDb('function header secrets and save checks', (kind) => {
  const t = useTestApp(kind);

  it('header values are stored sealed, answered as masks, and a mask sent back keeps the value', async () => {
    const user = await signUp(t());
    const created = await call(t(), 'POST', '/agent', { token: user.token, body: payload([custom()]) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agent = created.body.data.agent as Agent;
    const headersOf = (a: Agent) => (a.editor.functions![0] as Extract<AgentFunction, { type: 'custom' }>).headers;
    expect(headersOf(agent)).toEqual([
      { name: 'Authorization', value: SECRET_MASK },
      { name: 'X-Shop', value: SECRET_MASK },
    ]);
    const row = await storedDoc(t(), agent._id);
    expect(JSON.stringify(row)).not.toContain('sk_live_raw_value_123');
    expect(row.editor.functions[0].headers[0].value).toMatch(/^v1\./);

    const read = await call(t(), 'GET', `/agent/${agent._id}`, { token: user.token });
    expect(headersOf(read.body.data.agent)).toEqual(headersOf(agent));
    await call(t(), 'GET', '/agent', { token: user.token });

    // the editor saves what it read (masks) with one value changed
    const edited = payload([
      custom({
        headers: [
          { name: 'Authorization', value: SECRET_MASK },
          { name: 'X-Shop', value: 'south' },
        ],
      }),
    ]);
    const saved = await call(t(), 'PUT', `/agent/${agent._id}`, { token: user.token, body: { ...edited, version: 1 } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(headersOf(saved.body.data.agent)).toEqual(headersOf(agent));

    // the tool opens the stored values at run time: the API receives the kept Authorization and the new X-Shop
    api.secret = 'whsec_x';
    api.now = () => t().clock.now().getTime();
    api.requests = [];
    const fn = (await storedDoc(t(), agent._id)).editor.functions[0];
    const deps = { ...t().deps, config: { ...t().deps.config, allowPrivateToolUrls: true } };
    const [tool] = await customTool.prepare({ ...fn, url: `${api.url}/book` }, toolEnv(deps, 'whsec_x'));
    const out = await tool!.run({}, { ...toolEnv(deps, 'whsec_x'), companyId: user.companyId });
    expect(out.ok, out.result).toBe(true);
    expect(api.requests[0]!.headers.authorization).toBe(RAW);
    expect(api.requests[0]!.headers['x-shop']).toBe('south');

    for (const a of answers) expect(a).not.toContain('sk_live_raw_value_123');
  });

  it("Test LLM's unsaved draft: masks take the saved agent's values, new values are sealed", async () => {
    const user = await signUp(t());
    const created = await call(t(), 'POST', '/agent', { token: user.token, body: payload([custom()]) });
    const agentId = created.body.data.agent._id;
    const draft = payload([
      custom({
        headers: [
          { name: 'Authorization', value: SECRET_MASK },
          { name: 'X-Shop', value: 'draft' },
        ],
      }),
    ]);
    const caller = { companyId: user.companyId, accountId: user.accountId };
    const { doc } = await agentForTest(t().deps, caller, { agent_id: agentId, agent: draft });
    const headers = (doc.editor.functions![0] as Extract<AgentFunction, { type: 'custom' }>).headers;
    expect(JSON.stringify(headers)).not.toContain('draft');
    expect(openHeaders(t().deps.secrets.masterKey, user.companyId, headers)).toEqual({ authorization: RAW, 'x-shop': 'draft' });
  });

  it('a mask with nothing stored behind it (an imported export) becomes an empty value', async () => {
    const user = await signUp(t());
    const fns = [custom({ headers: [{ name: 'Authorization', value: SECRET_MASK }] })];
    const created = await call(t(), 'POST', '/agent', { token: user.token, body: payload(fns) });
    expect(created.status).toBe(201);
    expect(created.body.data.agent.editor.functions[0].headers).toEqual([{ name: 'Authorization', value: '' }]);
  });

  it('another company cannot save masks over an agent that is not its own', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const created = await call(t(), 'POST', '/agent', { token: a.token, body: payload([custom()]) });
    const id = created.body.data.agent._id;
    const put = await call(t(), 'PUT', `/agent/${id}`, { token: b.token, body: { ...payload([custom()]), version: 1 } });
    expect(put.status).toBe(404);
  });

  it('a private URL is refused on save naming the function, unless ALLOW_PRIVATE_TOOL_URLS', async () => {
    const user = await signUp(t());
    const res = await call(t(), 'POST', '/agent', {
      token: user.token,
      body: payload([custom({ url: 'http://127.0.0.1:8080/book' })]),
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe(
      'Function book_table: URL refused: 127.0.0.1 is a loopback address. Only public internet addresses are allowed here.',
    );
    const m = await call(t(), 'POST', '/agent', { token: user.token, body: payload([mcpFn({ url: 'http://10.0.0.5/mcp' })]) });
    expect(m.status).toBe(400);
    expect(m.body.msg).toMatch(/^Function shop: URL refused: 10\.0\.0\.5 is a private address/);
    t().deps.config.allowPrivateToolUrls = true;
    const allowed = await call(t(), 'POST', '/agent', {
      token: user.token,
      body: payload([custom({ url: 'http://127.0.0.1:8080/book' })]),
    });
    expect(allowed.status).toBe(201);
  });

  it('parameters that do not compile as JSON Schema are refused naming the function', async () => {
    const user = await signUp(t());
    const parameters = { type: 'object', properties: { day: { type: 'weekday' } } };
    const res = await call(t(), 'POST', '/agent', { token: user.token, body: payload([custom({ parameters })]) });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/^Function book_table: parameters are not a valid JSON Schema/);
  });
});

describeEachDb('Load tools (POST /agent/mcp-tools)', (kind) => {
  const t = useTestApp(kind);
  const body = (over: Record<string, unknown> = {}) => ({
    url: mcp.url,
    headers: [{ name: 'Authorization', value: `Bearer ${mcp.token}` }],
    ...over,
  });

  it('needs a signed-in user', async () => {
    expect((await call(t(), 'POST', '/agent/mcp-tools', { body: body() })).status).toBe(401);
  });

  it('refuses a private URL unless ALLOW_PRIVATE_TOOL_URLS, then lists the tools', async () => {
    const user = await signUp(t());
    mcp.requests = [];
    const refused = await call(t(), 'POST', '/agent/mcp-tools', { token: user.token, body: body() });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/URL refused: 127\.0\.0\.1 is a loopback address/);
    expect(mcp.requests).toHaveLength(0);

    t().deps.config.allowPrivateToolUrls = true;
    const res = await call(t(), 'POST', '/agent/mcp-tools', { token: user.token, body: body() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.tools.map((x: { name: string }) => x.name)).toEqual([
      'lookup_order',
      'cancel_order',
      'store_hours',
      'slow_search',
      'weird.name with spaces',
    ]);
    expect(res.body.tools[0]).toEqual({
      name: 'lookup_order',
      description: 'Finds an order by its number',
      input_schema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    });
  });

  it('at most LOAD_TOOLS_LIMIT a minute per company', async () => {
    const user = await signUp(t());
    const other = await signUp(t());
    for (let i = 0; i < LOAD_TOOLS_LIMIT.max; i++)
      expect((await call(t(), 'POST', '/agent/mcp-tools', { token: user.token, body: body() })).status).toBe(400);
    expect((await call(t(), 'POST', '/agent/mcp-tools', { token: user.token, body: body() })).status).toBe(429);
    expect((await call(t(), 'POST', '/agent/mcp-tools', { token: other.token, body: body() })).status).toBe(400);
    t().clock.advance(LOAD_TOOLS_LIMIT.windowMs + 1);
    expect((await call(t(), 'POST', '/agent/mcp-tools', { token: user.token, body: body() })).status).toBe(400);
  });

  it('a wrong token answers 502 with the reason', async () => {
    const user = await signUp(t());
    t().deps.config.allowPrivateToolUrls = true;
    const res = await call(t(), 'POST', '/agent/mcp-tools', {
      token: user.token,
      body: body({ headers: [{ name: 'Authorization', value: 'Bearer nope' }] }),
    });
    expect(res.status).toBe(502);
    expect(res.body.msg).toBe('Could not load the tools: The MCP server refused the credentials (HTTP 401): check the headers');
  });

  it('masked header values are taken from the saved agent of the caller’s company only', async () => {
    const user = await signUp(t());
    const other = await signUp(t());
    t().deps.config.allowPrivateToolUrls = true;
    const created = await call(t(), 'POST', '/agent', { token: user.token, body: payload([mcpFn({ url: mcp.url })]) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agentId = created.body.data.agent._id;
    const masked = body({ headers: [{ name: 'Authorization', value: SECRET_MASK }], agent_id: agentId, function_id: 2 });
    const res = await call(t(), 'POST', '/agent/mcp-tools', { token: user.token, body: masked });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.tools).toHaveLength(5);

    const foreign = await call(t(), 'POST', '/agent/mcp-tools', { token: other.token, body: masked });
    expect(foreign.status).toBe(404);
    const noStored = await call(t(), 'POST', '/agent/mcp-tools', {
      token: user.token,
      body: body({ headers: [{ name: 'Authorization', value: SECRET_MASK }] }),
    });
    expect(noStored.status).toBe(400);
    expect(noStored.body.msg).toBe('Enter the value of the Authorization header again');
    for (const a of answers) expect(a).not.toContain(mcp.token);
  });
});
