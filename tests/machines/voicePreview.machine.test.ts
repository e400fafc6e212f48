import { describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise } from 'xstate';
import type { VoicePreviewBody } from '../../src/api/contract/call-runtime.js';
import { ApiError } from '../../src/api/errors.js';
import { VOICE_PREVIEW_MESSAGES, type VoicePreviewEvent, voicePreviewMachine } from '../../src/machines/voicePreview.machine.js';
import { describeModel } from './harness.js';

const request: VoicePreviewBody = { agent_id: 'a1', text: 'Hello there.' };
const wav = new ArrayBuffer(64);

describeModel('voicePreview', voicePreviewMachine, {
  events: {
    'preview.play': [{ type: 'preview.play', request }],
    'xstate.done.actor.loadVoice': [{ type: 'xstate.done.actor.loadVoice', output: wav }],
    'xstate.error.actor.loadVoice': [
      {
        type: 'xstate.error.actor.loadVoice',
        error: new ApiError({ kind: 'http', status: 400, serverMessage: 'Connect ElevenLabs', link: '/dashboard/providers' }),
      },
      { type: 'xstate.error.actor.loadVoice', error: new Error('boom') },
    ],
  },
});

function previewActor(load: (body: VoicePreviewBody) => Promise<ArrayBuffer>) {
  const loads: VoicePreviewBody[] = [];
  const played: ArrayBuffer[] = [];
  let stops = 0;
  let send: (e: VoicePreviewEvent) => void = () => {};
  const actor = createActor(
    voicePreviewMachine.provide({
      actors: {
        loadVoice: fromPromise<ArrayBuffer, VoicePreviewBody>(({ input }) => {
          loads.push(input);
          return load(input);
        }),
        playVoice: fromCallback<VoicePreviewEvent, { audio: ArrayBuffer }>(({ input, sendBack }) => {
          played.push(input.audio);
          send = sendBack;
          return () => {
            stops += 1;
          };
        }),
      },
    }),
  ).start();
  return { actor, loads, played, stops: () => stops, finish: (e: VoicePreviewEvent) => send(e) };
}

describe('voicePreview behaviour', () => {
  it('Play loads (busy, a spinner) then plays the audio; the end of the clip brings Play back', async () => {
    const p = previewActor(async () => wav);
    p.actor.send({ type: 'preview.play', request });
    expect(p.actor.getSnapshot().matches('loading')).toBe(true);
    expect(p.actor.getSnapshot().hasTag('busy')).toBe(true);
    await vi.waitFor(() => expect(p.actor.getSnapshot().matches('playing')).toBe(true));
    expect(p.loads).toEqual([request]);
    expect(p.played).toEqual([wav]);
    p.finish({ type: 'clip.ended' });
    expect(p.actor.getSnapshot().matches('idle')).toBe(true);
    expect(p.actor.getSnapshot().context.audio).toBeNull();
  });

  it('Stop while playing stops the sound; Stop while loading plays nothing', async () => {
    let resolve: (b: ArrayBuffer) => void = () => {};
    const p = previewActor(() => new Promise((r) => (resolve = r)));
    p.actor.send({ type: 'preview.play', request });
    p.actor.send({ type: 'preview.stop' });
    resolve(wav);
    await new Promise((r) => setTimeout(r, 0));
    expect(p.actor.getSnapshot().matches('idle')).toBe(true);
    expect(p.played).toEqual([]);

    const q = previewActor(async () => wav);
    q.actor.send({ type: 'preview.play', request });
    await vi.waitFor(() => expect(q.actor.getSnapshot().matches('playing')).toBe(true));
    q.actor.send({ type: 'preview.stop' });
    expect(q.stops()).toBe(1);
    expect(q.actor.getSnapshot().matches('idle')).toBe(true);
  });

  it("a failure says why (the server's message and the Providers link); audio the browser cannot play says so", async () => {
    const p = previewActor(async () => {
      throw new ApiError({ kind: 'http', status: 400, serverMessage: 'Connect ElevenLabs', link: '/dashboard/providers' });
    });
    p.actor.send({ type: 'preview.play', request });
    await vi.waitFor(() => expect(p.actor.getSnapshot().context.error).toBe('Connect ElevenLabs'));
    expect(p.actor.getSnapshot().context.errorLink).toBe('/dashboard/providers');
    expect(p.actor.getSnapshot().matches('idle')).toBe(true);

    const q = previewActor(async () => wav);
    q.actor.send({ type: 'preview.play', request });
    await vi.waitFor(() => expect(q.actor.getSnapshot().matches('playing')).toBe(true));
    q.finish({ type: 'clip.failed' });
    expect(q.actor.getSnapshot().context.error).toBe(VOICE_PREVIEW_MESSAGES.playFailed);
    // playing again clears the message
    q.actor.send({ type: 'preview.play', request });
    expect(q.actor.getSnapshot().context.error).toBeNull();
  });
});
