/** batchDetail: send/cancel ask first, pause/resume act at once; a schedule must be a future time; one request of the chosen action. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

const failedMessage = (e: { serverMessage?: string } | undefined) =>
  e?.serverMessage || 'The batch call could not be changed. Please try again.';

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'act', s.matches('working') ? 1 : 0);
    expect(s.hasTag('busy')).toBe(s.matches('working'));
    expect(s.context.batchId).toBe('b1');
    if (!cameFrom(w, 'working')) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    idle: (s, w) => {
      expect(s.context.action).toBeNull();
      if (cameFrom(w, 'working')) {
        expect(effectsNow(w)).toEqual(['notify']);
        if (w.event.type.startsWith('xstate.done.')) {
          expect(s.context.error).toBeNull();
          expect(paramsNow(w, 'notify')).toEqual({ title: 'Batch call updated', description: ev(w).output.msg ?? '' });
        } else
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Error',
            description: failedMessage(ev(w).error),
            variant: 'destructive',
          });
      }
    },
    confirming: (s, w) => {
      expect(['send', 'cancel']).toContain(s.context.action);
      if (cameFrom(w, 'idle')) {
        expect(s.context.action).toBe(ev(w).action);
        expect(s.context.error).toBeNull();
      }
    },
    scheduling: (s, w) => {
      expect(s.context.action).toBe('schedule');
      if (cameFrom(w, 'idle')) expect(s.context.scheduledAt).toBe(ev(w).current);
      if (w.event.type === 'schedule.change') {
        expect(s.context.scheduledAt).toBe(ev(w).value);
        expect(s.context.error).toBeNull();
      }
      if (w.event.type === 'schedule.submit') {
        const raw = s.context.scheduledAt;
        expect(s.context.error).toBe(
          raw.trim() === ''
            ? 'Please choose when to send'
            : Number.isNaN(new Date(raw).getTime())
              ? 'Scheduled time must be a valid date and time'
              : 'Scheduled time must be in the future',
        );
      }
      if (cameFrom(w, 'working')) {
        expect(s.context.scheduledAt).toBe(w.previous?.context.scheduledAt);
        expect(s.context.error).toBe(failedMessage(ev(w).error));
        expect(effectsNow(w)).toEqual([]);
      }
    },
    working: (s, w) => {
      const action = s.context.action;
      const request = onlyRequest(w, 'act');
      expect(request).toEqual({
        batchId: 'b1',
        action,
        scheduledAt: action === 'schedule' ? new Date(s.context.scheduledAt).toISOString() : null,
      });
      if (action === 'schedule') expect(Date.parse(request.scheduledAt)).toBeGreaterThan(Date.now());
      // send and cancel only after the question; pause and resume straight from the buttons
      if (action === 'send' || action === 'cancel') expect(cameFrom(w, 'confirming')).toBe(true);
      if (action === 'pause' || action === 'resume') {
        expect(cameFrom(w, 'idle')).toBe(true);
        expect(action).toBe(ev(w).action);
        expect(s.context.error).toBeNull();
      }
    },
  },
});
