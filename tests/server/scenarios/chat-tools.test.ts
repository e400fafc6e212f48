import { afterEach, beforeEach, expect, it } from 'vitest';
import { signingSecret } from '../../../server/modules/webhooks/index.js';
import { createProviderRegistry } from '../../../server/voice/providers/registry.js';
import { CAL_BOOKINGS_VERSION, CAL_SLOTS_VERSION, CalcomFake } from '../../fakes/calcom.js';
import { CustomerApi } from '../../fakes/customer-api.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { type CallServer, connectProvider, readEvents, sampleAgent, savePayload, startCallServer } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';

/**
 * Scenarios of a Test LLM chat through the real engine and the real function kinds: the fake OpenAI
 * (Chat Completions over HTTP) asks for the functions, and each function reaches its provider's fake
 * (Cal.com, the customer's own API that checks the signature).
 */

type Msg = { role: string; content?: unknown; tool_call_id?: string };
type ToolCallRecord = { name: string; arguments: unknown; type: string; status: string; result: string; ms: number };

describeEachDb('scenario: Test LLM chats whose agent acts', (kind) => {
  let openai: FakeOpenAi;
  let cal: CalcomFake;
  let api: CustomerApi;
  let s: CallServer;
  beforeEach(async () => {
    openai = await startFakeOpenAi();
    // 09:00 and 09:30 UTC on 15 March 2027 are 10:00 and 10:30 in Berlin
    cal = await new CalcomFake('cal_live_scenario_key', 4242, ['2027-03-15T09:00:00Z', '2027-03-15T09:30:00Z']).start();
    api = await CustomerApi.start();
    s = await startCallServer(kind, createProviderRegistry(), { openai: openai.url, calcom: cal.url });
    await connectProvider(s, 'openai', openai.apiKey);
    api.secret = await signingSecret(s.t.deps, s.user.companyId);
    // the API checks the signature's time against the server's (test) clock
    api.now = () => s.t.deps.clock.now().getTime();
  });
  afterEach(async () => {
    await s.close();
    await Promise.all([openai.close(), cal.close(), api.close()]);
  });

  async function saveAgent(functions: unknown[]) {
    const agent = await sampleAgent(s);
    const body = savePayload(agent, { message: '', editor: { ...(agent.editor as object), functions } });
    const res = await s.t.req('PUT', `/api/v1/agent/${agent._id}`, { token: s.user.token, body });
    return { agent, body, res };
  }
  async function chatWith(agentId: string, body: unknown) {
    const res = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agentId, agent: body } });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { data: { chat_id: string } }).data.chat_id;
  }
  const say = async (chatId: string, content: string) =>
    readEvents(await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content } }));
  async function callDetail(chatId: string) {
    const ended = await s.t.req('POST', `/api/v1/chat/${chatId}/end`, { token: s.user.token });
    expect(ended.status).toBeLessThan(300);
    const res = await s.t.req('GET', `/api/v1/call/${chatId}`, { token: s.user.token });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { transcript: { role: string; text: string; tool_calls?: ToolCallRecord[] }[] } }).data;
  }

  it('checks availability and books on the fake Cal.com; the stream and the call detail show both calls', async () => {
    await connectProvider(s, 'calcom', cal.apiKey);
    const { agent, body, res } = await saveAgent([
      { id: 1, type: 'check_availability_cal', name: 'check_availability', event_type_id: 4242, timezone: 'Europe/Berlin' },
      { id: 2, type: 'book_appointment_cal', name: 'book_appointment', event_type_id: 4242, timezone: 'Europe/Berlin' },
    ]);
    expect(res.status, await res.clone().text()).toBe(200);
    // the fake model: check the day, book the first free time it was given, then say so
    openai.scriptChat((req) => {
      const last = req.messages.at(-1) as Msg;
      if (last.role === 'user')
        return { toolCalls: [{ name: 'check_availability', arguments: { start_date: '2027-03-15', days: 1 } }] };
      const result = JSON.parse(String(last.content)) as { free?: Record<string, string[]>; start?: string };
      if (result.free) {
        const first = result.free['2027-03-15']?.[0];
        return {
          text: `${first} is free. `,
          toolCalls: [
            {
              name: 'book_appointment',
              arguments: { start: `2027-03-15T${first}`, name: 'Ada Lovelace', email: 'ada@example.com' },
            },
          ],
        };
      }
      return { text: `You are booked for ${result.start}.` };
    });
    const chatId = await chatWith(agent._id, body);
    const events = await say(chatId, 'Can I come in on March 15?');

    // the stream: tool_call then tool_result for each, in order
    const steps = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => [e.type, e.name, e.ok]);
    expect(steps).toEqual([
      ['tool_call', 'check_availability', undefined],
      ['tool_result', 'check_availability', true],
      ['tool_call', 'book_appointment', undefined],
      ['tool_result', 'book_appointment', true],
    ]);
    const text = events
      .filter((e) => e.type === 'delta')
      .map((e) => e.text)
      .join('');
    expect(text).toBe('10:00 is free. You are booked for 2027-03-15 10:00.');

    // Cal.com was asked with the key and each endpoint's version, and holds the booking for the caller
    const [slots, booking] = cal.requests.filter((r) => r.path !== '/v2/me');
    expect(slots).toMatchObject({ method: 'GET', path: '/v2/slots', query: { eventTypeId: '4242', timeZone: 'Europe/Berlin' } });
    expect(slots?.headers['cal-api-version']).toBe(CAL_SLOTS_VERSION);
    expect(booking).toMatchObject({ method: 'POST', path: '/v2/bookings' });
    expect(booking?.headers['cal-api-version']).toBe(CAL_BOOKINGS_VERSION);
    expect(booking?.headers.authorization).toBe(`Bearer ${cal.apiKey}`);
    expect(cal.bookings).toHaveLength(1);
    expect(cal.bookings[0]).toMatchObject({
      start: '2027-03-15T09:00:00.000Z',
      eventTypeId: 4242,
      attendee: { name: 'Ada Lovelace', email: 'ada@example.com', timeZone: 'Europe/Berlin' },
    });
    expect(cal.slots).toEqual(['2027-03-15T09:30:00Z']);

    // the call's detail records both calls, ok
    const detail = await callDetail(chatId);
    const calls = detail.transcript.flatMap((t) => t.tool_calls ?? []);
    expect(calls.map((c) => [c.name, c.type, c.status])).toEqual([
      ['check_availability', 'check_availability_cal', 'ok'],
      ['book_appointment', 'book_appointment_cal', 'ok'],
    ]);
    expect(calls[1]?.arguments).toEqual({ start: '2027-03-15T10:00', name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(JSON.stringify(detail)).not.toContain(cal.apiKey);
  });

  const lookup = (url: string) => ({
    id: 1,
    type: 'custom',
    name: 'lookup_order',
    description: 'Finds an order by its number',
    url: `${url}/orders`,
    method: 'POST',
    parameters: {
      type: 'object',
      properties: { order: { type: 'string', pattern: '^[0-9]{5}$' } },
      required: ['order'],
    },
  });

  it('a custom function to 127.0.0.1 is refused on save (400) and, stored anyway, refused at call time: nothing reaches it', async () => {
    const refused = await saveAgent([lookup(api.url)]);
    expect(refused.res.status).toBe(400);
    expect(await refused.res.text()).toMatch(/lookup_order|private|address|URL/i);

    // saved while the server allowed private URLs, then the flag turned off
    s.t.deps.config.allowPrivateToolUrls = true;
    const { agent, body, res } = await saveAgent([lookup(api.url)]);
    expect(res.status, await res.clone().text()).toBe(200);
    s.t.deps.config.allowPrivateToolUrls = false;
    openai.scriptChat((req) =>
      (req.messages.at(-1) as Msg).role === 'tool'
        ? { text: 'Sorry, I cannot look that up right now.' }
        : { toolCalls: [{ name: 'lookup_order', arguments: { order: '12345' } }] },
    );
    const chatId = await chatWith(agent._id, body);
    const events = await say(chatId, 'Where is order 12345?');
    const result = events.find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({ name: 'lookup_order', ok: false });
    expect(String(result?.result)).toMatch(/private|refused|not allowed|public/i);
    expect(api.requests).toEqual([]);
    // the model was told, and said so in its own words; the chat goes on
    const toolMsg = ((openai.chatRequests[1]?.body.messages ?? []) as Msg[]).at(-1);
    expect(toolMsg?.role).toBe('tool');
    expect(events.at(-1)).toEqual({ type: 'done', ended: false });
    const detail = await callDetail(chatId);
    expect(detail.transcript.flatMap((t) => t.tool_calls ?? []).map((c) => c.status)).toEqual(['error']);
  });

  it('invalid arguments are never sent: the model gets the error, corrects itself, and only the valid call reaches the API', async () => {
    s.t.deps.config.allowPrivateToolUrls = true;
    const { agent, body, res } = await saveAgent([lookup(api.url)]);
    expect(res.status, await res.clone().text()).toBe(200);
    openai.scriptChat((req) => {
      const tools = (req.messages as Msg[]).filter((m) => m.role === 'tool');
      if (tools.length === 0) return { toolCalls: [{ name: 'lookup_order', arguments: { order: 'twelve' } }] };
      if (tools.length === 1) return { toolCalls: [{ name: 'lookup_order', arguments: { order: '12345' } }] };
      return { text: 'Found it.' };
    });
    const chatId = await chatWith(agent._id, body);
    const events = await say(chatId, 'Where is order 12345?');
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.ok)).toEqual([false, true]);
    expect(String(results[0]?.result)).toContain('Invalid arguments for lookup_order');
    // one request, the valid one, signed with the company's secret
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]?.verified).toBe(true);
    expect(JSON.parse(api.requests[0]?.body ?? '{}')).toMatchObject({ name: 'lookup_order', args: { order: '12345' } });
    const detail = await callDetail(chatId);
    expect(detail.transcript.flatMap((t) => t.tool_calls ?? []).map((c) => c.status)).toEqual(['invalid_arguments', 'ok']);
  });
});
