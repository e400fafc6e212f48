/** knowledgeBaseUpload: one upload at a time, of what was submitted; a retry of the same entries reuses the key. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'upload', s.matches('uploading') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('uploading')).toBe(s.matches('uploading'));
    if (!(cameFrom(w, 'uploading') && w.event.type.startsWith('xstate.done.'))) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    closed: (s, w) => {
      if (cameFrom(w, 'uploading')) {
        expect(s.context.attempt).toBeUndefined();
        expect(effectsNow(w)).toEqual(['uploaded']);
        expect(paramsNow(w, 'uploaded')).toEqual(ev(w).output);
      }
    },
    open: (s, w) => {
      if (cameFrom(w, 'closed')) expect(s.context).toEqual({ error: undefined, attempt: undefined });
      if (cameFrom(w, 'uploading')) {
        const e = ev(w).error;
        expect(s.context.error).toBe(e?.kind ? (e.serverMessage ?? e.message) : 'The upload failed. Please try again.');
      }
    },
    uploading: (s, w) => {
      const request = onlyRequest(w, 'upload');
      expect(request.idempotencyKey).toBe(s.context.attempt.key);
      if (cameFrom(w, 'open')) {
        expect(request.knowledgeBase).toEqual(ev(w).knowledgeBase);
        const all = w.started.filter((r) => r.src === 'upload');
        const before = all.at(-2);
        if (before) {
          const b = before.input as typeof request;
          const reset = w.events
            .slice(before.step)
            .some((e) => e.type === 'dialog.open' || e.type === 'xstate.done.actor.upload');
          const same = JSON.stringify(b.knowledgeBase) === JSON.stringify(request.knowledgeBase);
          if (same && !reset) expect(request.idempotencyKey).toBe(b.idempotencyKey);
          else expect(request.idempotencyKey).not.toBe(b.idempotencyKey);
        }
      }
    },
  },
});
