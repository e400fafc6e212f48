/**
 * batchRules: 'Edit dialling rules' of a batch call. The form opens with the batch's rules (the user's
 * zone proposed for a first window); Save sends one PATCH only with rules the contract accepts, else its
 * messages stand next to the fields; a failure keeps the input and shows the server's message.
 */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

const RULE_MESSAGES = [
  'Choose at least one day of the week to call on',
  'Times must be written HH:MM (24-hour clock)',
  'The calling window must end after it starts',
  'Please choose a known time zone',
  'Attempts must be a whole number from 1 to 5',
  'The retry delay must be a whole number of seconds from 30 to 86,400',
];
const saved = { title: 'Dialling rules saved', description: 'The batch call dials by its new rules.' };
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const wholeIn = (text: string, min: number, max: number) => /^\d+$/.test(text.trim()) && +text >= min && +text <= max;

export default defineInvariants({
  refused: ['rules.change', 'rules.close'],
  always: (s, w) => {
    expectPending(w, 'saveRules', s.matches('saving') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('busy')).toBe(s.matches('saving'));
    expect(s.context.batchId).toBe('b1');
    if (!(cameFrom(w, 'saving') && w.event.type.startsWith('xstate.done.'))) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    closed: (s, w) => {
      expect(s.context.errors).toEqual({});
      expect(s.context.failure).toBeNull();
      if (cameFrom(w, 'saving')) {
        expect(w.event.type.startsWith('xstate.done.')).toBe(true);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual(saved);
      }
    },
    editing: (s, w) => {
      const { draft, errors, failure } = s.context;
      expect(w.startedNow).toEqual([]);
      if (cameFrom(w, 'closed')) {
        const { rules, localZone } = ev(w);
        expect(draft.windowOn).toBe(rules.callingWindow !== null);
        if (rules.callingWindow) {
          expect(draft.days).toEqual(rules.callingWindow.days);
          expect([draft.start, draft.end]).toEqual([rules.callingWindow.start, rules.callingWindow.end]);
          expect(draft.timeZone).toBe(rules.timeZone);
        } else expect(draft.timeZone).toBe(rules.timeZone === 'UTC' ? localZone : rules.timeZone);
        expect(draft.maxAttempts).toBe(String(rules.maxAttempts));
        expect(draft.retryDelaySeconds).toBe(String(rules.retryDelaySeconds));
        expect(errors).toEqual({});
        expect(failure).toBeNull();
      }
      if (w.event.type === 'rules.change') {
        const patch = ev(w).patch as Record<string, unknown>;
        for (const [k, value] of Object.entries(patch)) {
          expect(draft[k]).toEqual(value);
          if (k !== 'windowOn') expect(errors[k]).toBeUndefined();
        }
        expect(failure).toBeNull();
      }
      if (w.event.type === 'rules.submit') {
        // refused: nothing sent, and the contract's own message by the field that breaks it
        const messages = Object.values(errors);
        expect(messages.length).toBeGreaterThan(0);
        for (const m of messages) expect(RULE_MESSAGES).toContain(m);
        expect(errors.maxAttempts === undefined).toBe(wholeIn(draft.maxAttempts, 1, 5));
        expect(errors.retryDelaySeconds === undefined).toBe(wholeIn(draft.retryDelaySeconds, 30, 86_400));
        if (!draft.windowOn) {
          expect(errors.days).toBeUndefined();
          expect(errors.end).toBeUndefined();
        } else {
          expect(errors.days === undefined).toBe(draft.days.length > 0);
          if (draft.days.length > 0 && minutes(draft.start) >= minutes(draft.end))
            expect(errors.end).toBe('The calling window must end after it starts');
        }
      }
      if (cameFrom(w, 'saving')) {
        // the input stays, with the server's message (or the form's own when the server gave none)
        expect(draft).toEqual(w.previous?.context.draft);
        expect(failure).toBe(ev(w).error?.serverMessage || 'The dialling rules could not be saved. Please try again.');
      }
    },
    saving: (s, w) => {
      const { draft } = s.context;
      // entered only by Save from the form; while it runs the form can be neither changed nor closed
      if (w.event.type === 'rules.submit') expect(cameFrom(w, 'editing')).toBe(true);
      else expect(cameFrom(w, 'saving')).toBe(true);
      const request = onlyRequest(w, 'saveRules');
      expect(request.batchId).toBe('b1');
      expect(request.body.maxAttempts).toBe(Number(draft.maxAttempts));
      expect(request.body.maxAttempts).toBeGreaterThanOrEqual(1);
      expect(request.body.maxAttempts).toBeLessThanOrEqual(5);
      expect(request.body.retryDelaySeconds).toBe(Number(draft.retryDelaySeconds));
      if (draft.windowOn) {
        expect(request.body.callingWindow.days).toEqual([...new Set(draft.days as number[])].sort((a, b) => a - b));
        expect(request.body.callingWindow.days.length).toBeGreaterThan(0);
        expect(minutes(request.body.callingWindow.start)).toBeLessThan(minutes(request.body.callingWindow.end));
        expect(request.body.timeZone).toBe(draft.timeZone);
      } else {
        // no window: removed, and the zone left as it is
        expect(request.body.callingWindow).toBeNull();
        expect('timeZone' in request.body).toBe(false);
      }
    },
  },
});
