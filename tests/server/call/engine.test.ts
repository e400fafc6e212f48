import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ProviderError } from '../../../server/voice/providers/types.js';
import { describeEachDb, LOG_LINES } from '../helpers.js';
import { connectProvider, openBrowser, readEvents, sampleAgent, savePayload, useCallServer, waitFor } from './harness.js';
import { InProcessProviders, tone } from './in-process-providers.js';

/**
 * The engine end to end over real HTTP and a real WebSocket, with providers in memory (the adapters'
 * wire protocols are tested against their fakes elsewhere): chats, web calls, barge-in, timers, failures,
 * and what is stored in Call History and the call detail.
 */
describeEachDb('call engine', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });

  const frame = () => tone(640, { encoding: 'pcm16', sampleRate: 16000 });

  async function startWebCall(agentPatch: Record<string, unknown> = {}) {
    const s = server();
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: savePayload(agent, agentPatch), dynamic_variables: { patient: 'Ruth' } },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    return { s, browser, callId: data.call_id, token: data.access_token, agent };
  }

  /** The caller says `text`: voice activity, the final words, the end of the utterance. */
  async function callerSays(text: string, sttIndex = 0) {
    const stt = await waitFor(() => p.stt[sttIndex], 'the speech stream');
    stt.emit({ type: 'speech_started', at: performance.now() });
    stt.emit({ type: 'transcript', text, isFinal: true, speechFinal: true, at: performance.now() });
  }

  it('Test LLM: a chat answers in streamed deltas, shows tool calls, and end_call ends it', async () => {
    const s = server();
    const agent = await sampleAgent(s);
    const refused = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agent._id } });
    expect(refused.status).toBe(400);
    const refusal = (await refused.json()) as { msg: string; problem: { provider: string; link: string } };
    expect(refusal.msg).toBe('Connect OpenAI on the Providers page to use GPT 4o');
    expect(refusal.problem).toEqual({
      provider: 'openai',
      message: 'Connect OpenAI on the Providers page to use GPT 4o',
      link: '/dashboard/providers',
    });

    await connectProvider(s, 'openai');
    const payload = savePayload(agent, {
      prompt: 'You help {{patient}}.',
      message: 'Hi {{patient}}!',
      editor: { ...(agent.editor as object), functions: [{ id: 1, name: 'end_call', type: 'end_call' }] },
    });
    const started = await s.t.req('POST', '/api/v1/chat', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: payload, dynamic_variables: { patient: 'Ruth' } },
    });
    expect(started.status).toBe(201);
    const chatId = ((await started.json()) as { data: { chat_id: string } }).data.chat_id;

    p.replies = [
      { text: 'Our nurses are in from ten. They leave at five.' },
      { text: 'Goodbye, Ruth!', toolCalls: [{ name: 'end_call', arguments: {} }] },
    ];
    const first = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, {
      token: s.user.token,
      body: { content: 'When are nurses in?' },
    });
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const events = await readEvents(first);
    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.text).join('')).toBe('Our nurses are in from ten. They leave at five.');
    expect(events.at(-1)).toEqual({ type: 'done', ended: false });
    // the unsaved prompt, filled, went to the LLM with the greeting and the message
    const req = p.llmRequests[0];
    if (!req) throw new Error('no LLM request');
    expect(req.messages[0]).toMatchObject({ role: 'system' });
    expect((req.messages[0] as { content: string }).content).toContain('You help Ruth.');
    expect(req.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hi Ruth!' },
      { role: 'user', content: 'When are nurses in?' },
    ]);
    expect(req.tools.map((t) => t.name)).toEqual(['end_call']);

    const second = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, {
      token: s.user.token,
      body: { content: 'Thanks, bye' },
    });
    const last = await readEvents(second);
    expect(last.filter((e) => e.type === 'tool_call')).toEqual([{ type: 'tool_call', name: 'end_call', arguments: {} }]);
    expect(last.at(-1)).toEqual({ type: 'done', ended: true });

    const after = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content: 'Hello?' } });
    expect(after.status).toBe(409);

    const transcript = await s.t.req('GET', `/api/v1/chat/${chatId}`, { token: s.user.token });
    const tx = ((await transcript.json()) as { data: { ended: boolean; transcript: { role: string; text: string }[] } }).data;
    expect(tx.ended).toBe(true);
    expect(tx.transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Hi Ruth!'],
      ['user', 'When are nurses in?'],
      ['agent', 'Our nurses are in from ten. They leave at five.'],
      ['user', 'Thanks, bye'],
      ['agent', 'Goodbye, Ruth!'],
    ]);

    const list = await s.t.req('GET', '/api/v1/call/?type=chat', { token: s.user.token });
    const calls = (
      (await list.json()) as { data: { calls: { _id: string; type: string; disconnectionReason: string; cost: number }[] } }
    ).data.calls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ _id: chatId, type: 'chat', disconnectionReason: 'agent_hangup' });
    expect(calls[0]?.cost).toBeGreaterThan(0);
  });

  it('closing a chat ends it at once: ended by the user in Call History, idempotent, the caller company only', async () => {
    const s = server();
    await connectProvider(s, 'openai');
    const agent = await sampleAgent(s);
    const started = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agent._id } });
    const chatId = ((await started.json()) as { data: { chat_id: string } }).data.chat_id;
    p.replies = [{ text: 'We open at ten.' }];
    await readEvents(
      await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content: 'When?' } }),
    );
    type Listed = { _id: string; status: string; disconnectionReason: string | null };
    const listed = async () => {
      const res = await s.t.req('GET', '/api/v1/call/?type=chat', { token: s.user.token });
      return ((await res.json()) as { data: { calls: Listed[] } }).data.calls;
    };
    const detail = async () => {
      const res = await s.t.req('GET', `/api/v1/call/${chatId}`, { token: s.user.token });
      return ((await res.json()) as { data: { status: string } }).data.status;
    };
    // going on: not in the list of calls yet, its detail says ongoing
    expect(await listed()).toEqual([]);
    expect(await detail()).toBe('ongoing');

    // another company's token cannot end it
    const { signUp } = await import('../auth-helpers.js');
    const other = await signUp(s.t);
    expect((await s.t.req('POST', `/api/v1/chat/${chatId}/end`, { token: other.token })).status).toBe(404);
    expect((await s.t.req('POST', `/api/v1/chat/${chatId}/end`)).status).toBe(401);
    expect(await detail()).toBe('ongoing');

    const ended = await s.t.req('POST', `/api/v1/chat/${chatId}/end`, { token: s.user.token });
    expect(ended.status).toBe(200);
    const body = (await ended.json()) as { data: { chat_id: string; ended: boolean; transcript: { text: string }[] } };
    expect(body.data).toMatchObject({ chat_id: chatId, ended: true });
    expect(body.data.transcript.map((t) => t.text)).toContain('We open at ten.');
    const [row] = await listed();
    expect(row).toMatchObject({ _id: chatId, status: 'ended', disconnectionReason: 'user_hangup' });
    expect(await detail()).toBe('ended');

    // again: nothing changes; the chat takes no more messages
    const again = await s.t.req('POST', `/api/v1/chat/${chatId}/end`, { token: s.user.token });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { ended: boolean } }).data.ended).toBe(true);
    expect(await listed()).toEqual([row]);
    const after = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content: 'Hi?' } });
    expect(after.status).toBe(409);
  });

  it('a chat of another company is 404, and an empty message is refused', async () => {
    const s = server();
    await connectProvider(s, 'openai');
    const agent = await sampleAgent(s);
    const started = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agent._id } });
    const chatId = ((await started.json()) as { data: { chat_id: string } }).data.chat_id;
    const { signUp } = await import('../auth-helpers.js');
    const other = await signUp(s.t);
    expect((await s.t.req('GET', `/api/v1/chat/${chatId}`, { token: other.token })).status).toBe(404);
    expect(
      (await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: other.token, body: { content: 'hi' } })).status,
    ).toBe(404);
    const empty = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content: '   ' } });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { msg: string }).msg).toContain('Type a message first');
  });

  it('Test: a web call greets, answers the caller, hangs up on end_call, and lands in Call History with its recording', async () => {
    p.replies = [{ text: 'We open at ten. Goodbye!', toolCalls: [{ name: 'end_call', arguments: {} }] }];
    const { s, browser, callId } = await startWebCall({
      message: 'Hello {{patient}}, this is the clinic.',
      editor: { functions: [{ id: 1, name: 'end_call', type: 'end_call' }] },
    });
    // the greeting is spoken: audio frames arrive, states announced
    await waitFor(() => browser.audioBytes > 0, 'greeting audio');
    expect(p.ttsTexts[0]?.text).toBe('Hello Ruth, this is the clinic.');
    expect(p.ttsTexts[0]?.options.format).toEqual({ encoding: 'pcm16', sampleRate: 16000 });
    expect(p.stt[0]?.options).toMatchObject({ language: 'en-US', format: { encoding: 'pcm16', sampleRate: 16000 } });
    await waitFor(() => browser.of('state').some((e) => e.value === 'speaking'), 'speaking state');
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'greeting heard');
    for (let i = 0; i < 10; i++) browser.send(frame());
    await waitFor(() => (p.stt[0]?.audioBytes ?? 0) >= 6400, 'caller audio at the recogniser');
    await callerSays('When do you open?');
    const ended = await browser.closed;
    expect(ended.code).toBe(1000);
    expect(browser.of('ended')).toEqual([{ type: 'ended', reason: 'agent_hangup' }]);
    expect(p.ttsTexts.map((t) => t.text)).toEqual(['Hello Ruth, this is the clinic.', 'We open at ten.', 'Goodbye!']);

    const detail = await waitFor(async () => {
      const res = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const d = ((await res.json()) as { data: Record<string, unknown> }).data;
      return d.status === 'ended' ? d : undefined;
    }, 'call stored');
    const d = detail as unknown as {
      type: string;
      disconnection_reason: string;
      transcript: { role: string; text: string; tool_calls?: unknown[] }[];
      latency: { total_ms: number; llm_ms: number }[];
      usage: { tts_characters: number; stt_seconds: number; llm_input_tokens: number };
      cost: { total: number; stt: number; tts: number; llm: number };
      recording_url: string;
    };
    expect(d.type).toBe('web');
    expect(d.disconnection_reason).toBe('agent_hangup');
    expect(d.transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Hello Ruth, this is the clinic.'],
      ['user', 'When do you open?'],
      ['agent', 'We open at ten. Goodbye!'],
    ]);
    expect(d.transcript[2]?.tool_calls).toEqual([{ name: 'end_call', arguments: {} }]);
    expect(d.latency).toHaveLength(1);
    expect(d.latency[0]?.total_ms).toBeGreaterThanOrEqual(0);
    expect(d.usage.tts_characters).toBe('Hello Ruth, this is the clinic.We open at ten.Goodbye!'.length);
    expect(d.usage.stt_seconds).toBeGreaterThan(0);
    expect(d.cost.total).toBeCloseTo(d.cost.stt + d.cost.tts + d.cost.llm, 4);
    expect(d.recording_url).toMatch(/^\/api\/v1\/call\/[0-9a-f]+\/recording\?token=/);

    const wav = await fetch(`${s.baseUrl}${d.recording_url}`);
    expect(wav.status).toBe(200);
    expect(wav.headers.get('content-type')).toBe('audio/wav');
    const bytes = Buffer.from(await wav.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.readUInt16LE(22)).toBe(2); // stereo: caller left, agent right
    expect(bytes.readUInt32LE(24)).toBe(16000);
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
    const ranged = await fetch(`${s.baseUrl}${d.recording_url}`, { headers: { Range: 'bytes=0-43' } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(44);
    const forged = d.recording_url.replace(/token=[^&]+/, 'token=9999999999.AAAA');
    expect((await fetch(`${s.baseUrl}${forged}`)).status).toBe(404);
    expect(fs.existsSync(path.join(s.t.dataDir, 'recordings', s.user.companyId, `${callId}.wav`))).toBe(true);

    const list = await s.t.req('GET', '/api/v1/call/?type=web', { token: s.user.token });
    const calls = ((await list.json()) as { data: { calls: { _id: string; status: string }[] } }).data.calls;
    expect(calls.map((c) => [c._id, c.status])).toEqual([[callId, 'ended']]);
  });

  it("the socket's token works once, and a wrong one is refused on the upgrade", async () => {
    const { s, browser, callId, token } = await startWebCall();
    const again = openBrowser(s, callId, token);
    await expect(again.opened).rejects.toThrow('upgrade refused: 401');
    const wrong = openBrowser(s, callId, 'x'.repeat(43));
    await expect(wrong.opened).rejects.toThrow('upgrade refused: 401');
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
  });

  it('barge-in: the caller talks over the agent; clear is sent, the voice is cancelled and the turn cut to what was heard', async () => {
    p.msPerChar = 40; // a long answer: several seconds of audio
    p.replies = [
      { text: 'Our nursing team is in from ten in the morning. They leave at five in the evening. Visiting hours are the same.' },
    ];
    const { s, browser, callId } = await startWebCall({ message: '', editor: { interruption: 1 } });
    await callerSays('When are nurses in?');
    await waitFor(() => browser.of('state').some((e) => e.value === 'speaking'), 'agent speaking');
    await waitFor(() => browser.audioBytes > 16000, 'half a second of answer');
    p.stt[0]?.emit({ type: 'speech_started', at: performance.now() });
    await waitFor(() => browser.of('clear').length > 0, 'clear');
    const sentAtClear = browser.audioBytes;
    await new Promise((r) => setTimeout(r, 200));
    expect(browser.audioBytes - sentAtClear).toBeLessThanOrEqual(1280); // at most the frames already in flight
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    const d = await waitFor(async () => {
      const res = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const data = (
        (await res.json()) as { data: { status: string; transcript: { role: string; text: string; interrupted?: boolean }[] } }
      ).data;
      return data.status === 'ended' ? data : undefined;
    }, 'stored');
    const agentTurn = d.transcript.find((t) => t.role === 'agent');
    expect(agentTurn?.interrupted).toBe(true);
    expect(agentTurn?.text.length).toBeGreaterThan(0);
    expect(agentTurn?.text.length).toBeLessThan(
      'Our nursing team is in from ten in the morning. They leave at five in the evening. Visiting hours are the same.'.length,
    );
    expect('Our nursing team is in from ten in the morning. They leave at five in the evening.').toContain(
      agentTurn?.text.split(' ').slice(0, 3).join(' ') ?? 'x',
    );
  });

  it('backchannel: while the caller talks at length the agent says its words without taking the turn', async () => {
    const { browser } = await startWebCall({
      message: '',
      editor: { backchanneling: true, backchannelFrequency: 1, backchannelWords: 'mm-hmm, I see' },
    });
    const stt = await waitFor(() => p.stt[0], 'the speech stream');
    stt.emit({ type: 'speech_started', at: performance.now() });
    const long = 'so I was at the pharmacy yesterday and they told me that my prescription had run out and';
    stt.emit({ type: 'transcript', text: long, isFinal: false, speechFinal: false, at: performance.now() });
    await waitFor(() => browser.audioBytes > 0, 'the acknowledgement played');
    expect(p.ttsTexts.map((t) => t.text)).toEqual(['mm-hmm']);
    expect(browser.of('state').map((e) => e.value)).not.toContain('speaking');
    expect(p.llmRequests).toHaveLength(0); // the caller keeps the turn
    stt.emit({
      type: 'transcript',
      text: `${long} I need a new one please`,
      isFinal: false,
      speechFinal: false,
      at: performance.now(),
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(p.ttsTexts.map((t) => t.text)).toEqual(['mm-hmm', 'I see']);
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
  });

  it('a refused LLM key ends the call with a reason naming the provider', async () => {
    p.replies = [{ error: new ProviderError('openai', 'auth', 'Incorrect API key provided', 401) }];
    const { browser } = await startWebCall({ message: '' });
    await callerSays('Hello?');
    await browser.closed;
    expect(browser.of('ended')).toEqual([
      { type: 'ended', reason: 'error_llm_provider', message: 'OpenAI refused the API key. Check it on the Providers page.' },
    ]);
  });

  it('a stored agent the contract refuses fails the call at its start, naming the field, and is logged', async () => {
    const s = server();
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', { token: s.user.token, body: { agent_id: agent._id } });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    // the document stored with the call no longer passes (a model since retired)
    const db = s.t.deps.db.db;
    const row = await db.selectFrom('call_sessions').select('agent').where('id', '=', data.call_id).executeTakeFirstOrThrow();
    const stored = JSON.parse(row.agent) as { settings: { llm: { options: { model: string } } } };
    stored.settings.llm.options.model = 'gpt-retired';
    await db
      .updateTable('call_sessions')
      .set({ agent: JSON.stringify(stored) })
      .where('id', '=', data.call_id)
      .execute();

    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    await browser.closed;
    const ended = browser.of('ended')[0] as { reason: string; message: string };
    expect(ended.reason).toBe('error_unknown');
    expect(ended.message).toContain('settings.llm.options.model: Choose one of the listed LLM models');
    // nothing ran: no provider was asked anything
    expect(p.stt).toHaveLength(0);
    expect(p.ttsTexts).toHaveLength(0);
    const detail = await waitFor(async () => {
      const r = await s.t.req('GET', `/api/v1/call/${data.call_id}`, { token: s.user.token });
      const d = ((await r.json()) as { data: { status: string; error_message: string | null } }).data;
      return d.status === 'error' ? d : undefined;
    }, 'call stored');
    expect(detail.error_message).toContain('settings.llm.options.model');
    expect(LOG_LINES.some((l) => l.includes('web call refused: the stored agent is not valid') && l.includes(data.call_id))).toBe(
      true,
    );

    // a chat whose stored agent is refused answers its next message with 409 and the same reason
    const chat = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body: { agent_id: agent._id } });
    const { chat_id } = ((await chat.json()) as { data: { chat_id: string } }).data;
    await db
      .updateTable('call_sessions')
      .set({ agent: JSON.stringify(stored) })
      .where('id', '=', chat_id)
      .execute();
    const msg = await s.t.req('POST', `/api/v1/chat/${chat_id}/message`, { token: s.user.token, body: { content: 'Hi' } });
    expect(msg.status).toBe(409);
    expect(await msg.text()).toContain('settings.llm.options.model');
    expect(p.llmRequests ?? []).toHaveLength(0);
  });

  it("Test Audio: the agent's voice says the text as a 16 kHz WAV; a refused voice key answers 502 naming the provider", async () => {
    const s = server();
    await connectProvider(s, 'elevenlabs');
    const agent = await sampleAgent(s);
    const settings = agent.settings as { tts: { options: Record<string, unknown> } };
    const payload = savePayload(agent, {
      settings: { ...settings, tts: { ...settings.tts, options: { ...settings.tts.options, voice_id: 'voice-9', speed: 1.1 } } },
    });
    const res = await s.t.req('POST', '/api/v1/voices/preview', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: payload, text: 'Hello there.' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const wav = Buffer.from(await res.arrayBuffer());
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16000);
    // 10 ms of audio per character at 16 kHz PCM16, all of it
    expect(wav.readUInt32LE(40)).toBe('Hello there.'.length * 10 * 32);
    expect(wav.length).toBe(44 + 'Hello there.'.length * 10 * 32);
    expect(p.ttsTexts).toHaveLength(1);
    expect(p.ttsTexts[0]?.text).toBe('Hello there.');
    expect(p.ttsTexts[0]?.options).toMatchObject({
      voiceId: 'voice-9',
      speed: 1.1,
      apiKey: 'elevenlabs-test-key',
      format: { encoding: 'pcm16', sampleRate: 16000 },
    });

    p.ttsError = new ProviderError('elevenlabs', 'auth', 'invalid api key', 401);
    const refused = await s.t.req('POST', '/api/v1/voices/preview', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: payload, text: 'Hello there.' },
    });
    expect(refused.status).toBe(502);
    expect(await refused.text()).toContain('ElevenLabs refused the API key. Check it on the Providers page.');
  });

  it('a refused speech key ends the call at once (error_stt_provider)', async () => {
    p.sttError = new ProviderError('deepgram', 'auth', 'Invalid credentials', 401);
    const { browser } = await startWebCall({ message: '' });
    await browser.closed;
    expect(browser.of('ended')[0]).toMatchObject({ reason: 'error_stt_provider' });
  });

  it('silence ends the call for inactivity; max duration ends it too', async () => {
    const quiet = await startWebCall({ message: '', editor: { endCallOnSilence: 0.002, reminderTimes: 0 } });
    await quiet.browser.closed;
    expect(quiet.browser.of('ended')[0]).toMatchObject({ reason: 'inactivity' });

    const long = await startWebCall({ message: '', editor: { maxCallDuration: 0.00005 } });
    await long.browser.closed;
    expect(long.browser.of('ended')[0]).toMatchObject({ reason: 'max_duration_reached' });
  });

  it('a Realtime agent: the session speaks the greeting, answers turns, is truncated on barge-in, and hangs up on end_call', async () => {
    const { s, browser, callId } = await startWebCall({
      message: 'Hello from the clinic.',
      settings: {
        llm: { options: { model: 'gpt-4o-realtime' } },
        tts: { options: { voice_id: 'EXAVITQu4vr4xnJ9xU1z', model: 'auto' } },
        stt: { options: { language: 'en-US' } },
      },
      editor: { interruption: 1, functions: [{ id: 1, name: 'end_call', type: 'end_call' }] },
    });
    const rt = await waitFor(() => p.realtime[0], 'the realtime session');
    expect(rt.options).toMatchObject({
      model: 'gpt-realtime',
      voice: 'alloy',
      greeting: 'Hello from the clinic.',
      format: { encoding: 'pcm16', sampleRate: 16000 },
    });
    expect(rt.options.tools.map((t) => t.name)).toEqual(['end_call']);
    expect(p.stt).toHaveLength(0); // no separate speech recogniser, no LLM, no voice provider
    const at = () => performance.now();
    const audio = (ms: number) => tone(ms * 32, { encoding: 'pcm16', sampleRate: 16000 });
    // greeting response
    rt.emit({ type: 'audio', chunk: audio(200), itemId: 'item_greet', at: at() });
    rt.emit({ type: 'agent_transcript', text: 'Hello from the clinic.', itemId: 'item_greet', at: at() });
    rt.emit({ type: 'response_done', inputTokens: 50, outputTokens: 20, at: at() });
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'greeting heard');
    for (let i = 0; i < 5; i++) browser.send(frame());
    await waitFor(() => rt.audioBytes >= 3200, 'caller audio at the session');

    // a turn: the provider detects the speech, answers at length; the caller barges in
    rt.emit({ type: 'speech_started', at: at() });
    rt.emit({ type: 'speech_stopped', at: at() });
    rt.emit({ type: 'user_transcript', text: 'Are you open today?', at: at() });
    rt.emit({ type: 'audio', chunk: audio(3000), itemId: 'item_2', at: at() });
    rt.emit({
      type: 'agent_transcript',
      text: 'Yes we are open today from nine until five and on Saturdays too.',
      itemId: 'item_2',
      at: at(),
    });
    await waitFor(() => browser.audioBytes > 32 * 400, 'the answer playing');
    rt.emit({ type: 'speech_started', at: at() });
    await waitFor(() => rt.interrupts.length > 0, 'interrupt');
    expect(rt.interrupts[0]?.itemId).toBe('item_2');
    expect(rt.interrupts[0]?.playedMs).toBeGreaterThan(0);
    expect(rt.interrupts[0]?.playedMs).toBeLessThan(3000);
    // the clear reaches the browser over its socket, after the session was told in process
    await waitFor(() => browser.of('clear').length > 0, 'clear at the browser');
    // the cancelled response's late events are dropped
    rt.emit({ type: 'audio', chunk: audio(500), itemId: 'item_2', at: at() });
    rt.emit({ type: 'response_done', inputTokens: 10, outputTokens: 10, at: at() });

    // last turn: goodbye and end_call
    rt.emit({ type: 'speech_stopped', at: at() });
    rt.emit({ type: 'audio', chunk: audio(100), itemId: 'item_3', at: at() });
    rt.emit({ type: 'agent_transcript', text: 'Goodbye!', itemId: 'item_3', at: at() });
    rt.emit({ type: 'tool_call', call: { id: 'call_1', name: 'end_call', arguments: {} }, at: at() });
    rt.emit({ type: 'response_done', inputTokens: 10, outputTokens: 5, at: at() });
    await browser.closed;
    expect(browser.of('ended')).toEqual([{ type: 'ended', reason: 'agent_hangup' }]);
    expect(rt.toolResults).toEqual([]); // end_call is not answered: the call ends

    const d = await waitFor(async () => {
      const res = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const data = (
        (await res.json()) as {
          data: {
            status: string;
            transcript: { role: string; text: string; interrupted?: boolean }[];
            usage: { llm_input_tokens: number };
          };
        }
      ).data;
      return data.status === 'ended' ? data : undefined;
    }, 'stored');
    expect(d.transcript.map((t) => [t.role, t.text, t.interrupted ?? false])).toEqual([
      ['agent', 'Hello from the clinic.', false],
      ['user', 'Are you open today?', false],
      ['agent', expect.stringMatching(/^Yes/), true],
      ['user', '', false],
      ['agent', 'Goodbye!', false],
    ]);
    expect(d.usage.llm_input_tokens).toBe(60);
  });
});
