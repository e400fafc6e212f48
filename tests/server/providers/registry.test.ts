/**
 * The provider registry (server/voice/providers/registry.ts): a provider added through the registry alone,
 * with no other file edited, runs a Test LLM chat and a web call end to end over real HTTP and a real
 * WebSocket; and the registry's own rules (routes, defaults, URL variables, keys).
 */
import { describe, expect, it } from 'vitest';
import {
  createProviderRegistry,
  defineProvider,
  type ProviderDescriptor,
  ProviderRegistry,
} from '../../../server/voice/providers/registry.js';
import type {
  LlmEvent,
  LlmRequest,
  SttOptions,
  SttProvider,
  TtsOptions,
  TtsProvider,
} from '../../../server/voice/providers/types.js';
import { openBrowser, readEvents, sampleAgent, savePayload, useCallServer, waitFor } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';

/** What the caller says to the loopback recogniser once it has heard 100 ms of audio. */
const HEARD = 'Is anyone there?';

/**
 * A provider of the test's own: it recognises one sentence, answers by echoing the last user message and
 * speaks 1 ms of silence per character. It takes no key (it is not in the catalogue) and claims the editor
 * model 'GPT 4o mini', so an agent on that model runs through it.
 */
function loopbackProvider() {
  const seen = { stt: [] as SttOptions[], llm: [] as LlmRequest[], tts: [] as TtsOptions[], spoken: [] as string[] };
  const stt: SttProvider = {
    async connect(options, onEvent) {
      seen.stt.push(options);
      let bytes = 0;
      let heard = false;
      return {
        sendAudio(frame) {
          bytes += frame.byteLength;
          if (heard || bytes < 3200) return;
          heard = true;
          setImmediate(() => {
            onEvent({ type: 'speech_started', at: performance.now() });
            onEvent({ type: 'transcript', text: HEARD, isFinal: true, speechFinal: true, at: performance.now() });
          });
        },
        finalize() {},
        async close() {},
        get audioSeconds() {
          return bytes / 32000;
        },
      };
    },
  };
  const llm = {
    name: 'loopback',
    async *stream(request: LlmRequest): AsyncIterable<LlmEvent> {
      seen.llm.push(request);
      const last = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      yield { type: 'delta', text: `Echo: ${last}`, at: performance.now() };
      yield { type: 'usage', inputTokens: 10, outputTokens: 3 };
      yield { type: 'done', finishReason: 'stop' };
    },
  };
  const tts: TtsProvider = {
    name: 'loopback',
    async connect(options, onEvent) {
      seen.tts.push(options);
      let text = '';
      let characters = 0;
      return {
        sendText(t) {
          text += t;
          characters += t.length;
        },
        end() {
          seen.spoken.push(text.trim());
          const chunk = new Uint8Array(text.length * 32);
          setImmediate(() => {
            onEvent({ type: 'audio', chunk, at: performance.now() });
            onEvent({ type: 'done' });
          });
        },
        cancel() {},
        get characters() {
          return characters;
        },
      };
    },
  };
  const descriptor: ProviderDescriptor = {
    id: 'loopback',
    label: 'Loopback',
    kinds: ['stt', 'llm', 'tts'],
    fields: [],
    url: { default: 'http://loopback.invalid', env: 'LOOPBACK_API_URL' },
    models: [{ id: 'gpt-4o-mini', kind: 'llm', providerModel: 'loopback-echo' }],
    voice: { modelId: (voiceModel) => `loopback-${voiceModel}` },
    create: () => ({ stt, llm, tts }),
  };
  return { descriptor, seen };
}

describeEachDb('a provider registered through the registry alone', (kind) => {
  let loopback: ReturnType<typeof loopbackProvider>;
  const server = useCallServer(kind, () => {
    loopback = loopbackProvider();
    return createProviderRegistry().register(loopback.descriptor);
  });

  /** The sample agent on GPT 4o mini, recognised and spoken by `service`. */
  async function agentOn(service: string) {
    const agent = await sampleAgent(server());
    const settings = agent.settings as Record<string, Record<string, unknown>>;
    return {
      agent,
      payload: savePayload(agent, {
        message: 'Hello, loopback here.',
        settings: {
          ...settings,
          llm: { ...settings.llm, options: { model: 'gpt-4o-mini' } },
          stt: { ...settings.stt, service },
          tts: { ...settings.tts, service },
        },
      }),
    };
  }

  it('Test LLM: a chat runs through it, with no key connected', async () => {
    const s = server();
    const { agent, payload } = await agentOn('loopback');
    const started = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agent._id, agent: payload } });
    expect(started.status).toBe(201);
    const chatId = ((await started.json()) as { data: { chat_id: string } }).data.chat_id;
    const res = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content: 'Ping' } });
    expect(res.status).toBe(200);
    const events = await readEvents(res);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('Echo: Ping');
    expect(loopback.seen.llm[0]).toMatchObject({ model: 'loopback-echo', baseUrl: 'http://loopback.invalid', apiKey: '' });
  });

  it('a web call hears, answers and speaks through it, and is stored with its providers', async () => {
    const s = server();
    const { agent, payload } = await agentOn('loopback');
    const res = await s.t.req('POST', '/api/v1/call/web', { token: s.user.token, body: { agent_id: agent._id, agent: payload } });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    await waitFor(() => browser.audioBytes > 0, 'the greeting spoken by the loopback voice');
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'greeting heard');
    for (let i = 0; i < 10; i++) browser.send(new Uint8Array(640));
    await waitFor(() => loopback.seen.spoken.includes(`Echo: ${HEARD}`), 'the answer spoken');
    await waitFor(
      () => browser.of('transcript').some((e) => e.role === 'agent' && e.final && e.text === `Echo: ${HEARD}`),
      'the answer heard',
    );
    browser.ws.close();
    const detail = await waitFor(async () => {
      const r = await s.t.req('GET', `/api/v1/call/${data.call_id}`, { token: s.user.token });
      const d = ((await r.json()) as { data: Record<string, unknown> }).data;
      return d.status === 'ended' ? d : undefined;
    }, 'call stored');
    const d = detail as unknown as { transcript: { role: string; text: string }[] };
    expect(d.transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Hello, loopback here.'],
      ['user', HEARD],
      ['agent', `Echo: ${HEARD}`],
    ]);
    expect(loopback.seen.stt[0]).toMatchObject({ baseUrl: 'http://loopback.invalid', format: { encoding: 'pcm16' } });
    expect(loopback.seen.tts[0]).toMatchObject({
      baseUrl: 'http://loopback.invalid',
      model: expect.stringMatching(/^loopback-/),
    });
  });

  it('the built-in providers still run an agent that does not name it (a key is then needed)', async () => {
    const s = server();
    const { agent, payload } = await agentOn('elevenlabs');
    const res = await s.t.req('POST', '/api/v1/call/web', { token: s.user.token, body: { agent_id: agent._id, agent: payload } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { msg: string }).msg).toBe('Connect Deepgram on the Providers page to use speech recognition');
  });
});

describe('the provider registry', () => {
  it('routes every editor model to a built-in provider, and picks a kind by the agent, else its default', () => {
    const r = createProviderRegistry();
    expect(r.list().map((d) => d.id)).toEqual(['deepgram', 'openai', 'anthropic', 'elevenlabs', 'cartesia']);
    expect(r.pick('tts', 'cartesia')).toBe('cartesia');
    expect(r.pick('tts', 'smallest')).toBe('elevenlabs');
    expect(r.pick('tts', undefined)).toBe('elevenlabs');
    expect(r.pick('stt', 'deepgram')).toBe('deepgram');
    expect(r.pick('stt', 'openai')).toBe('deepgram');
    expect(r.modelRoute('gpt-4o-realtime')).toMatchObject({ provider: 'openai', kind: 'realtime' });
    expect(r.modelRoute('claude-3-haiku')).toMatchObject({ provider: 'anthropic', kind: 'llm' });
  });

  it('names the URL variables and resolves each base from them, else the default', () => {
    const r = createProviderRegistry();
    expect(r.urlVariables()).toContainEqual({ id: 'openai', env: 'OPENAI_BASE_URL' });
    const urls = r.urlsOf({ DEEPGRAM_API_URL: 'http://127.0.0.1:9' });
    expect(urls.deepgram).toBe('http://127.0.0.1:9');
    expect(urls.openai).toBe('https://api.openai.com');
  });

  it('a later registration takes an editor model over; replacing adapters keeps the descriptors', () => {
    const { descriptor } = loopbackProvider();
    const r = createProviderRegistry();
    expect(r.modelRoute('gpt-4o-mini')?.provider).toBe('openai');
    r.register(descriptor);
    expect(r.modelRoute('gpt-4o-mini')).toEqual({
      id: 'gpt-4o-mini',
      kind: 'llm',
      providerModel: 'loopback-echo',
      provider: 'loopback',
    });
    const other = loopbackProvider().descriptor.create();
    const swapped = r.withAdapters({ openai: { llm: other.llm } });
    expect(swapped.llm('openai')).toBe(other.llm);
    expect(swapped.descriptor('openai')?.url.env).toBe('OPENAI_BASE_URL');
    expect(r.llm('openai')).not.toBe(other.llm);
  });

  it('refuses credential fields on a provider outside the catalogue (no company could enter them)', () => {
    const { descriptor } = loopbackProvider();
    expect(() => new ProviderRegistry([{ ...descriptor, fields: [{ name: 'API Key', secret: true }] }])).toThrow(
      'loopback is not in the provider catalogue',
    );
  });

  it('a catalogue descriptor takes its label, kinds, fields and editor models from the contract', () => {
    const d = defineProvider('anthropic', { url: { default: 'http://a.test', env: 'A_URL' }, create: () => ({}) });
    expect([d.label, d.kinds, d.fields.map((f) => f.name)]).toEqual(['Anthropic', ['llm'], ['API Key']]);
    expect(d.models?.map((m) => m.id)).toEqual(['claude-3.5-sonnet', 'claude-3.5-haiku', 'claude-3-haiku']);
    expect(() =>
      // @ts-expect-error a name outside the catalogue is not a catalogue descriptor
      defineProvider('acme', { url: { default: 'http://a.test', env: 'A_URL' }, create: () => ({}) }),
    ).toThrow('acme is not in the provider catalogue');
  });
});
