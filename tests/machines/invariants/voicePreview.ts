/**
 * voicePreview: Test Audio. Play loads the voice with the settings in the editor now (a
 * spinner), then plays it; Stop ends the load or the sound at once; one load or one sound at a time; the
 * clip is not kept once it stopped; a failure says why (the server's words, where to fix it) and the next
 * Play clears it.
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { VOICE_PREVIEW_MESSAGES } from '../../../src/machines/voicePreview.machine.js';
import { cameFrom, ev, expectNothingPending, expectPending, onlyRequest } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

export default defineInvariants({
  always: (s, w) => {
    const loading = s.matches('loading');
    const playing = s.matches('playing');
    // the spinner / Stop button shows exactly while something is loading or playing
    expect(s.hasTag('busy')).toBe(loading || playing);
    expectPending(w, 'loadVoice', loading ? 1 : 0);
    expectPending(w, 'playVoice', playing ? 1 : 0);
    // the clip is held only while it plays
    expect(s.context.audio !== null).toBe(playing);
    // an error shows only once nothing is going on (Play clears it)
    if (loading || playing) expect([s.context.error, s.context.errorLink]).toEqual([null, null]);
    if (s.context.errorLink !== null) expect(s.context.error).not.toBeNull();
    // Play is the only thing that changes what is asked for
    if (w.previous && w.event.type !== 'preview.play') expect(s.context.request).toEqual(w.previous.context.request);
  },
  states: {
    idle: (s, w) => {
      expectNothingPending(w);
      if (!w.previous) {
        expect(s.context).toEqual({ request: null, audio: null, error: null, errorLink: null });
        return;
      }
      const e = ev(w);
      if (w.event.type === 'xstate.error.actor.loadVoice') {
        // the server's words and where to fix them, else a generic message
        if (e.error instanceof ApiError) {
          expect(s.context.error).toBe(e.error.serverMessage ?? e.error.message);
          expect(s.context.errorLink).toBe(e.error.link ?? null);
        } else expect([s.context.error, s.context.errorLink]).toEqual([VOICE_PREVIEW_MESSAGES.loadFailed, null]);
      } else if (w.event.type === 'clip.failed') {
        expect(s.context.error).toBe(VOICE_PREVIEW_MESSAGES.playFailed);
      } else {
        // Stop, or the end of the clip: no message
        expect(['preview.stop', 'clip.ended']).toContain(w.event.type);
        expect([s.context.error, s.context.errorLink]).toEqual([null, null]);
      }
    },
    loading: (s, w) => {
      // the voice is asked for with the settings Play was pressed with
      expect(onlyRequest(w, 'loadVoice')).toEqual(s.context.request);
      expect(cameFrom(w, 'idle')).toBe(true);
      expect(w.event.type).toBe('preview.play');
      expect(s.context.request).toEqual(ev(w).request);
      expect(w.startedNow.map((r) => r.src)).toEqual(['loadVoice']);
    },
    playing: (s: Snapshot, w) => {
      // the sound played is the one the server sent
      expect(onlyRequest(w, 'playVoice')).toEqual({ audio: s.context.audio });
      expect(cameFrom(w, 'loading')).toBe(true);
      expect(s.context.audio).toBe(ev(w).output);
    },
  },
  explore: {
    events: {
      'preview.stop': [{ type: 'preview.stop' }],
      'clip.ended': [{ type: 'clip.ended' }],
      'clip.failed': [{ type: 'clip.failed' }],
    },
  },
});
