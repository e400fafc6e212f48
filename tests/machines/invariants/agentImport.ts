/** agentImport: read and validate the file, then one POST of its agent; the same agent again reuses the key. */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

export default defineInvariants({
  explore: {
    events: {
      'xstate.error.actor.readFile': [{ type: 'xstate.error.actor.readFile', error: 'not an error object' }],
      'xstate.error.actor.createAgent': [
        {
          type: 'xstate.error.actor.createAgent',
          error: new ApiError({ kind: 'http', status: 400, serverMessage: 'Bad agent' }),
        },
        { type: 'xstate.error.actor.createAgent', error: new ApiError({ kind: 'network' }) },
      ],
    },
  },
  always: (s, w) => {
    expectPending(w, 'readFile', s.matches('reading') ? 1 : 0);
    expectPending(w, 'createAgent', s.matches('creating') ? 1 : 0);
    expect(s.hasTag('busy')).toBe(!s.matches('idle'));
    if (!w.event.type.startsWith('xstate.')) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    idle: (s, w) => {
      expect(s.context.file).toBeUndefined();
      expect(s.context.payload).toBeUndefined();
      const e = ev(w).error;
      const message = (fallback: string) =>
        e instanceof ApiError ? (e.serverMessage ?? fallback) : e instanceof Error ? e.message : fallback;
      if (cameFrom(w, 'reading')) {
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({
          title: 'Import failed',
          description: message('The file is not an agent export.'),
          variant: 'destructive',
        });
      }
      if (cameFrom(w, 'creating')) {
        expect(effectsNow(w)).toEqual(['notify']);
        if (w.event.type.startsWith('xstate.done.')) {
          expect(s.context.attempt).toBeUndefined();
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Agent imported',
            description: `“${ev(w).output.data.agent.name}” has been added to your agents.`,
          });
        } else
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Import failed',
            description: message('Could not create the agent. Please try again.'),
            variant: 'destructive',
          });
      }
    },
    reading: (s, w) => {
      expect(onlyRequest(w, 'readFile')).toBe(s.context.file);
      if (cameFrom(w, 'idle')) expect(s.context.file).toBe(ev(w).file);
    },
    creating: (s, w) => {
      expect(s.context.file).toBeUndefined();
      const request = onlyRequest(w, 'createAgent');
      expect(request).toEqual({ payload: s.context.payload, idempotencyKey: s.context.attempt.key });
      if (cameFrom(w, 'reading')) {
        expect(s.context.payload).toEqual(ev(w).output);
        const creates = w.started.filter((r) => r.src === 'createAgent');
        const before = creates.at(-2);
        if (before) {
          const b = before.input as typeof request;
          const succeeded = w.events.slice(before.step).some((e) => e.type === 'xstate.done.actor.createAgent');
          const same = JSON.stringify(b.payload) === JSON.stringify(request.payload);
          if (same && !succeeded) expect(request.idempotencyKey).toBe(b.idempotencyKey);
          else expect(request.idempotencyKey).not.toBe(b.idempotencyKey);
        }
      }
    },
  },
});
