import { afterEach, beforeEach, expect, it } from 'vitest';
import { createProviderRegistry } from '../../../server/voice/providers/registry.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { DeepgramFake } from '../../fakes/deepgram.js';
import { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { describeEachDb } from '../helpers.js';
import {
  type CallServer,
  connectProvider,
  connectUntried,
  openBrowser,
  readEvents,
  sampleAgent,
  savePayload,
  startCallServer,
  waitFor,
} from './harness.js';

/**
 * Whole conversations through the REAL provider adapters, against the protocol-faithful fakes on
 * 127.0.0.1 (tests/fakes: Deepgram live, OpenAI Chat Completions, Anthropic Messages, ElevenLabs
 * stream-input). The only difference from production is the providers' base URLs. The caller is a
 * WebSocket that sends 16 kHz PCM16 frames: a loud tone is speech to the Deepgram fake, whose script
 * says what the words were.
 */
describeEachDb('calls through the provider protocols', (kind) => {
  let deepgram: DeepgramFake;
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let eleven: ElevenLabsFake;
  let s: CallServer;

  beforeEach(async () => {
    [deepgram, openai, anthropic, eleven] = await Promise.all([
      DeepgramFake.start(),
      startFakeOpenAi(),
      startFakeAnthropic(),
      ElevenLabsFake.start(),
    ]);
    eleven.msPerChar = 8; // short audio keeps the tests quick (the playout is real time)
    s = await startCallServer(kind, createProviderRegistry(), {
      deepgram: deepgram.url,
      openai: openai.url,
      anthropic: anthropic.url,
      elevenlabs: eleven.url,
    });
    await connectProvider(s, 'deepgram', deepgram.key);
    await connectProvider(s, 'openai', openai.apiKey);
    await connectProvider(s, 'anthropic', anthropic.apiKey);
    await connectProvider(s, 'elevenlabs', eleven.key);
  });
  afterEach(async () => {
    await s.close();
    await Promise.all([deepgram.close(), openai.close(), anthropic.close(), eleven.close()]);
  });

  /** 20 ms frames of 16 kHz PCM16: a 440 Hz tone (speech to the fake's VAD) or silence. */
  function frames(ms: number, loud: boolean): Buffer[] {
    const out: Buffer[] = [];
    for (let t = 0; t < ms; t += 20) {
      const f = Buffer.alloc(640);
      if (loud)
        for (let i = 0; i < 320; i++)
          f.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 440 * (t * 16 + i)) / 16000)), i * 2);
      out.push(f);
    }
    return out;
  }

  async function webCall(patch: Record<string, unknown>) {
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: savePayload(agent, patch) },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    return { browser, callId: data.call_id };
  }

  /** The caller speaks for `ms`, then is silent long enough for the endpointing. */
  function say(browser: ReturnType<typeof openBrowser>, ms = 400) {
    for (const f of [...frames(ms, true), ...frames(500, false)]) browser.send(f);
  }

  async function stored(callId: string) {
    return waitFor(async () => {
      const res = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const d = ((await res.json()) as { data: Record<string, unknown> }).data;
      return d.status !== 'ongoing' && d.status !== 'registered' ? (d as Record<string, never>) : undefined;
    }, 'the call stored');
  }

  it('a full conversation: greeting, the caller heard by Deepgram, OpenAI answers, ElevenLabs speaks, end_call hangs up', async () => {
    deepgram.script = ['I would like an appointment on Monday.'];
    openai.scriptChat([
      {
        text: 'Monday at ten is free. I have booked it for you. Goodbye!',
        toolCalls: [{ name: 'end_call', arguments: { reason: 'booked' } }],
      },
    ]);
    const { browser, callId } = await webCall({
      message: 'Hello, this is the clinic.',
      prompt: 'You book appointments.',
      editor: {
        boostedKeywords: 'Ruth, cardiology',
        functions: [{ id: 1, name: 'end_call', type: 'end_call' }],
        pronunciations: [{ id: 'p1', word: 'clinic', type: 'IPA', phoneme: 'ˈklɪnɪk' }],
      },
    });
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'greeting heard');
    say(browser);
    const closed = await browser.closed;
    expect(closed.code).toBe(1000);
    expect(browser.of('ended')).toEqual([{ type: 'ended', reason: 'agent_hangup' }]);
    expect(browser.audioBytes).toBeGreaterThan(0);

    // what each provider was asked, in its own protocol
    const listen = deepgram.streams[0];
    expect(listen?.query.get('encoding')).toBe('linear16');
    expect(listen?.query.get('sample_rate')).toBe('16000');
    expect(listen?.query.get('language')).toBe('en-US');
    expect(listen?.query.get('interim_results')).toBe('true');
    expect(listen?.query.get('vad_events')).toBe('true');
    expect(listen?.query.getAll('keywords')).toEqual(['Ruth:2', 'cardiology:2']);
    const chat = openai.chatRequests.at(-1)?.body as {
      model: string;
      stream: boolean;
      messages: { role: string; content: unknown }[];
      tools: { function: { name: string } }[];
    };
    expect(chat.model).toBe('gpt-4o');
    expect(chat.stream).toBe(true);
    expect(chat.messages.at(-1)).toEqual({ role: 'user', content: 'I would like an appointment on Monday.' });
    expect(chat.tools.map((t) => t.function.name)).toEqual(['end_call']);
    const spoken = eleven.streams.map((st) => st.texts.join('').trim());
    // the agent's pronunciation reaches the voice as an SSML phoneme tag (English Flash v2 reads them)
    expect(spoken).toEqual([
      'Hello, this is the <phoneme alphabet="ipa" ph="ˈklɪnɪk">clinic</phoneme>.',
      'Monday at ten is free.',
      'I have booked it for you.',
      'Goodbye!',
    ]);
    expect(eleven.streams[0]?.query.get('output_format')).toBe('pcm_16000');
    expect(eleven.streams[0]?.query.get('model_id')).toBe('eleven_flash_v2');
    expect(eleven.streams[0]?.query.get('enable_ssml_parsing')).toBe('true');

    const d = (await stored(callId)) as unknown as {
      transcript: { role: string; text: string }[];
      latency: { total_ms: number; llm_ms: number; tts_ms: number }[];
      usage: { llm_input_tokens: number; stt_seconds: number };
      recording_url: string | null;
      disconnection_reason: string;
    };
    expect(d.disconnection_reason, JSON.stringify(d)).toBe('agent_hangup');
    expect(d.transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Hello, this is the clinic.'],
      ['user', 'I would like an appointment on Monday.'],
      ['agent', 'Monday at ten is free. I have booked it for you. Goodbye!'],
    ]);
    expect(d.latency).toHaveLength(1);
    expect(d.latency[0]?.total_ms).toBeGreaterThan(0);
    expect(d.usage?.llm_input_tokens).toBeGreaterThan(0);
    expect(d.usage.stt_seconds).toBeGreaterThan(0.5);
    expect(d.recording_url).not.toBeNull();
  });

  it('barge-in: the caller talks over a long answer; clear is sent, the voice stream is cancelled, the turn cut', async () => {
    eleven.msPerChar = 40;
    eleven.chunkIntervalMs = 100; // the voice streams at about real time, as ElevenLabs does
    deepgram.script = ['Tell me about visiting hours.', 'Wait, sorry.'];
    openai.scriptChat([
      {
        text: 'Visiting hours are from ten in the morning. They end at five in the evening. On Sundays they start at noon.',
      },
    ]);
    const { browser, callId } = await webCall({ message: '', editor: { interruption: 1 } });
    say(browser);
    await waitFor(() => browser.of('state').some((e) => e.value === 'speaking'), 'the agent speaking');
    await waitFor(() => browser.audioBytes > 32 * 600, 'part of the answer played');
    for (const f of frames(300, true)) browser.send(f);
    await waitFor(() => browser.of('clear').length > 0, 'clear');
    // a finished voice stream is closed by ElevenLabs after its last audio; a cancelled one by the adapter
    await waitFor(() => eleven.streams.some((st) => st.closed?.by === 'client'), 'a voice stream cancelled');
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    expect(browser.of('ended')).toEqual([{ type: 'ended', reason: 'user_hangup' }]);
    const d = (await stored(callId)) as unknown as { transcript: { role: string; text: string; interrupted?: boolean }[] };
    const agentTurn = d.transcript.find((t) => t.role === 'agent');
    expect(agentTurn?.interrupted).toBe(true);
    expect(agentTurn?.text.startsWith('Visiting hours')).toBe(true);
    expect(agentTurn?.text).not.toContain('noon');
  });

  it('a provider that refuses the key: the call ends error_llm_provider with a message naming OpenAI', async () => {
    await s.t.req('DELETE', '/api/v1/provider/disconnect', { token: s.user.token, body: { name: 'openai' } });
    await connectUntried(s, 'openai', 'sk-wrong-key-0000');
    deepgram.script = ['Hello?'];
    const { browser, callId } = await webCall({ message: '' });
    say(browser);
    await browser.closed;
    expect(browser.of('ended')).toEqual([
      { type: 'ended', reason: 'error_llm_provider', message: 'OpenAI refused the API key. Check it on the Providers page.' },
    ]);
    const d = (await stored(callId)) as unknown as { status: string; error_message: string };
    expect(d.status).toBe('error');
    expect(d.error_message).toBe('OpenAI refused the API key. Check it on the Providers page.');
  });

  it('silence until the inactivity timeout, and the maximum duration, end the call', async () => {
    const quiet = await webCall({ message: '', editor: { endCallOnSilence: 0.005, reminderTimes: 0 } });
    for (const f of frames(200, false)) quiet.browser.send(f);
    await quiet.browser.closed;
    expect(quiet.browser.of('ended')).toEqual([{ type: 'ended', reason: 'inactivity' }]);
    const long = await webCall({ message: 'Hello there.', editor: { maxCallDuration: 0.0001 } });
    await long.browser.closed;
    expect(long.browser.of('ended')).toEqual([{ type: 'ended', reason: 'max_duration_reached' }]);
  });

  it('Test LLM with a Claude model: the Anthropic Messages stream answers in deltas', async () => {
    anthropic.script([{ text: 'We are open from nine to five on weekdays.' }]);
    const agent = await sampleAgent(s);
    const payload = savePayload(agent, {
      settings: { ...(agent.settings as object), llm: { options: { model: 'claude-3.5-haiku' } } },
    });
    const started = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agent._id, agent: payload } });
    expect(started.status).toBe(201);
    const chatId = ((await started.json()) as { data: { chat_id: string } }).data.chat_id;
    const res = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, {
      token: s.user.token,
      body: { content: 'When are you open?' },
    });
    const events = await readEvents(res);
    expect(events.filter((e) => e.type === 'delta').length).toBeGreaterThan(1);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('We are open from nine to five on weekdays.');
    expect(events.at(-1)).toEqual({ type: 'done', ended: false });
    const request = anthropic.requests.at(-1)?.body as { model: string; system: string; stream: boolean };
    expect(request.model).toBe('claude-haiku-4-5');
    expect(request.stream).toBe(true);
    expect(request.system).toContain('Keep your answers short.');
  });
});
