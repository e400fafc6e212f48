import { expect, it } from 'vitest';
import type { ToolKinds } from '../../../server/voice/tools/runner.js';
import type { ToolKind, ToolOutcome } from '../../../server/voice/tools/types.js';
import { describeEachDb } from '../helpers.js';
import { connectProvider, openBrowser, sampleAgent, savePayload, useCallServer, waitFor } from './harness.js';
import { InProcessProviders } from './in-process-providers.js';

/**
 * A Realtime agent whose one response asks for several functions: they run at once, and only when the
 * response is done and every function has answered are the results sent, all together with one request
 * for the next response (one answer that speaks of all of them, never a response per result).
 */
describeEachDb('several functions in one Realtime response', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });

  it('every result is sent, then one response is asked for', async () => {
    const s = server();
    await connectProvider(s, 'openai');
    const answers = new Map<string, (o: ToolOutcome) => void>();
    const custom: ToolKind<'custom'> = {
      type: 'custom',
      async prepare(fn) {
        return [
          {
            fn,
            spec: { name: fn.name, description: fn.description || fn.name, parameters: fn.parameters },
            run: (args) => new Promise((r) => answers.set(String(args.day), r)),
          },
        ];
      },
    };
    s.rt.toolKinds = { custom } as ToolKinds;
    const agent = await sampleAgent(s);
    const fn = {
      id: 1,
      type: 'custom',
      name: 'hours',
      description: 'Opening hours of a day',
      url: 'https://api.example.com/hours',
      parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
    };
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, {
          message: '',
          settings: {
            llm: { options: { model: 'gpt-4o-realtime' } },
            tts: { options: { voice_id: 'EXAVITQu4vr4xnJ9xU1z', model: 'auto' } },
            stt: { options: { language: 'en-US' } },
          },
          editor: { ...(agent.editor as object), functions: [fn] },
        }),
      },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    const rt = await waitFor(() => p.realtime[0], 'the realtime session');
    const at = () => performance.now();
    rt.emit({ type: 'speech_started', at: at() });
    rt.emit({ type: 'speech_stopped', at: at() });
    rt.emit({ type: 'tool_call', call: { id: 'call_mon', name: 'hours', arguments: { day: 'monday' } }, at: at() });
    rt.emit({ type: 'tool_call', call: { id: 'call_tue', name: 'hours', arguments: { day: 'tuesday' } }, at: at() });
    await waitFor(() => answers.size === 2, 'both functions running at once');
    // the first answers before the response is even done: nothing is sent yet
    answers.get('monday')?.({ ok: true, result: 'nine on monday' });
    rt.emit({ type: 'response_done', inputTokens: 10, outputTokens: 5, at: at() });
    await new Promise((r) => setTimeout(r, 20));
    expect(rt.toolBatches).toEqual([]);
    answers.get('tuesday')?.({ ok: true, result: 'ten on tuesday' });
    await waitFor(() => rt.toolBatches.length === 1, 'the results sent');
    expect(rt.toolBatches).toEqual([['call_mon', 'call_tue']]);
    expect(rt.toolResults).toEqual([
      { callId: 'call_mon', output: 'nine on monday' },
      { callId: 'call_tue', output: 'ten on tuesday' },
    ]);
    rt.emit({ type: 'audio', chunk: new Uint8Array(3200), itemId: 'item_ans', at: at() });
    rt.emit({ type: 'agent_transcript', text: 'Nine on Monday, ten on Tuesday.', itemId: 'item_ans', at: at() });
    rt.emit({ type: 'response_done', inputTokens: 10, outputTokens: 5, at: at() });
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'the answer heard');
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    expect(rt.toolBatches).toHaveLength(1);
    const stored = await waitFor(async () => {
      const r = await s.t.req('GET', `/api/v1/call/${data.call_id}`, { token: s.user.token });
      const d = (
        (await r.json()) as {
          data: { status: string; transcript: { role: string; text: string; tool_calls?: { status: string }[] }[] };
        }
      ).data;
      return d.status === 'ended' ? d : undefined;
    }, 'call stored');
    const turn = stored.transcript.find((t) => t.role === 'agent');
    expect(turn?.text).toBe('Nine on Monday, ten on Tuesday.');
    expect(turn?.tool_calls?.map((c) => c.status)).toEqual(['ok', 'ok']);
  });
});
