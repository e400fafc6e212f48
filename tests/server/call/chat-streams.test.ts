/**
 * Test LLM (POST /chat/{id}/message) against its LLM over real sockets: a company's own OpenAI Base URL that
 * drips one endless line (the chat answers the error; the server keeps answering meanwhile), and a tester
 * who stops a reply (the LLM request is closed at once and the chat takes the next message).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SSE_LINE_MAX, type StreamWork } from '../../../server/voice/providers/http-stream.js';
import { createOpenAiChat } from '../../../server/voice/providers/openai/chat.js';
import { createProviderRegistry } from '../../../server/voice/providers/registry.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { describeEachDb } from '../helpers.js';
import { mostPerTurn, until } from '../providers/llm-helpers.js';
import { type CallServer, connectProvider, sampleAgent, startCallServer } from './harness.js';

describeEachDb('chat streams', (kind) => {
  let fake: FakeOpenAi;
  let s: CallServer;
  /** the work of each chunk of the LLM answers, with the turn of the event loop it was read in */
  let chunks: (StreamWork & { turn: number })[];
  let turns: number;
  let ticking: boolean;

  beforeEach(async () => {
    fake = await startFakeOpenAi();
    chunks = [];
    turns = 0;
    ticking = false;
    const observed = createOpenAiChat({ observe: (work) => chunks.push({ ...work, turn: turns }) });
    s = await startCallServer(kind, createProviderRegistry().withAdapters({ openai: { llm: observed } }), { openai: fake.url });
  });
  afterEach(async () => {
    ticking = false;
    await s.close();
    await fake.close();
  });

  /** Counts the turns of the event loop (one setImmediate a turn) while `ticking`. */
  function countTurns() {
    ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
  }

  async function startChat() {
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agent._id } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { chat_id: string } }).data.chat_id;
  }

  /** POST /chat/{id}/message over a real socket (the answer is read by the caller). */
  const postMessage = (chatId: string, content: string, signal?: AbortSignal) =>
    fetch(`${s.baseUrl}/api/v1/chat/${chatId}/message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
      signal,
    });

  const eventsOf = (text: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);

  it("a company's own Base URL dripping a 1 MB line: the chat answers that the line is too long, other requests are answered meanwhile", async () => {
    s.t.deps.config.allowPrivateProviderUrls = true;
    const values = await s.t.req('POST', '/api/v1/provider/values', {
      token: s.user.token,
      body: {
        name: 'openai',
        keys: [
          { name: 'API Key', value: fake.apiKey },
          { name: 'Base URL', value: `${fake.url}/v1` },
        ],
      },
    });
    expect(values.status).toBe(201);
    fake.scriptChat([{ dripLine: { bytes: 4 * 1024 * 1024, piece: 512 } }]);
    const chatId = await startChat();

    const order: string[] = [];
    countTurns();
    const chat = postMessage(chatId, 'Hello?').then(async (res) => {
      const text = await res.text();
      order.push('chat');
      return { status: res.status, events: eventsOf(text) };
    });
    // once the LLM is answering, ten /health requests one after another (a monitor polling the server)
    await until(() => chunks.length > 0);
    const health = (async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${s.baseUrl}/api/v1/health`);
        await res.text();
        statuses.push(res.status);
      }
      order.push('health');
      return statuses;
    })();
    const [answer, healthStatus] = await Promise.all([chat, health]);
    ticking = false;

    expect(answer.status).toBe(200);
    expect(answer.events).toEqual([
      { type: 'error', message: 'OpenAI sent a line longer than 1 MB', reason: 'error_llm_provider' },
      { type: 'done', ended: true },
    ]);
    expect(healthStatus).toEqual(Array(10).fill(200));
    // the server answered all of them while it read the line, not after
    expect(order).toEqual(['health', 'chat']);
    const last = chunks.at(-1) as StreamWork;
    expect(last.chunks).toBeGreaterThan(1000);
    expect(last.received - SSE_LINE_MAX).toBeGreaterThan(0);
    expect(last.received - SSE_LINE_MAX).toBeLessThanOrEqual(64 * 1024);
    // each byte looked at once, and one chunk a turn of the event loop
    expect(last.scanned).toBeLessThanOrEqual(last.received);
    expect(mostPerTurn(chunks.map((c) => c.turn))).toBeLessThanOrEqual(2);
    await until(() => fake.chatRequests[0]?.closedEarly === true);
  });

  it('stopping a reply closes the LLM request at once, keeps what was said, and the chat takes the next message', async () => {
    await connectProvider(s, 'openai', fake.apiKey);
    const long = 'Our clinic opens at nine. '.repeat(40);
    fake.scriptChat([{ text: long, paceMs: 25 }, { text: 'Yes, Saturday mornings too.' }]);
    const chatId = await startChat();

    const stop = new AbortController();
    const res = await postMessage(chatId, 'When do you open?', stop.signal);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let first = '';
    while (!first.includes('"delta"')) first += new TextDecoder().decode((await reader.read()).value);
    stop.abort();

    // the LLM saw its request closed before it had sent the reply
    await until(() => fake.chatRequests[0]?.closedEarly === true);
    expect(fake.chatRequests[0]?.completed).toBe(false);

    // at once, the next message: not 409 'still answering'
    const next = await postMessage(chatId, 'On Saturdays?');
    expect(next.status).toBe(200);
    const events = eventsOf(await next.text());
    expect(events.at(-1)).toEqual({ type: 'done', ended: false });
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('Yes, Saturday mornings too.');

    // the stopped turn is kept as far as it was sent, and the LLM was given it
    const second = fake.chatRequests[1]?.body as { messages: { role: string; content: string }[] };
    expect(second.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'When do you open?',
      'On Saturdays?',
    ]);
    const stored = await s.t.req('GET', `/api/v1/chat/${chatId}`, { token: s.user.token });
    const transcript = ((await stored.json()) as { data: { transcript: Record<string, unknown>[] } }).data.transcript;
    const kept = transcript.map((t) => ({ role: t.role, text: t.text, interrupted: t.interrupted ?? false }));
    expect(kept.at(-4)).toEqual({ role: 'user', text: 'When do you open?', interrupted: false });
    expect(kept.at(-3)).toMatchObject({ role: 'agent', interrupted: true });
    expect(long.startsWith(String(kept.at(-3)?.text))).toBe(true);
    expect(String(kept.at(-3)?.text).length).toBeLessThan(long.length);
    expect(kept.slice(-2)).toEqual([
      { role: 'user', text: 'On Saturdays?', interrupted: false },
      { role: 'agent', text: 'Yes, Saturday mornings too.', interrupted: false },
    ]);
  });
});
