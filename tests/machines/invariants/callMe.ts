/**
 * callMe: the editor's 'Call me'. A call is placed only for a saved agent and an E.164 number,
 * one request at a time, with exactly the agent and the number typed (trimmed); the user is told the
 * call was placed, or why it was not, and an edit of the number clears the message.
 */
import { expect } from 'vitest';
import { CALL_ME_MESSAGES, E164_PATTERN } from '../../../src/api/contract/telephony.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

export default defineInvariants({
  explore: {
    inputs: [{ agentId: undefined }],
    events: {
      'phone.change': [
        { type: 'phone.change', value: ' +14155550123 ' },
        { type: 'phone.change', value: '415 555 0123' },
      ],
      'agent.change': [
        { type: 'agent.change', agentId: 'a'.repeat(24) },
        { type: 'agent.change', agentId: undefined },
      ],
    },
  },
  always: (s, w) => {
    expectPending(w, 'placeCall', s.matches('placing') ? 1 : 0);
    expect(s.hasTag('busy')).toBe(s.matches('placing'));
    // only a placed call tells the user with a toast; everything else is shown under the field
    if (!(cameFrom(w, 'placing') && w.event.type.startsWith('xstate.done.'))) expect(effectsNow(w)).toEqual([]);
    if (w.event.type === 'phone.change') {
      expect(s.context.phone).toBe(ev(w).value);
      expect(s.context.error).toBeNull();
    }
    if (w.event.type === 'agent.change') expect(s.context.agentId).toBe(ev(w).agentId);
  },
  states: {
    idle: (s, w) => {
      if (w.event.type === 'call.start') {
        // refused without a request: the reason says what to fix
        expect(w.startedNow).toEqual([]);
        expect(s.context.error).toBe(
          s.context.agentId === undefined ? CALL_ME_MESSAGES.saveFirst : CALL_ME_MESSAGES.phoneInvalid,
        );
        if (s.context.agentId !== undefined) expect(E164_PATTERN.test(s.context.phone.trim())).toBe(false);
      }
      if (cameFrom(w, 'placing')) {
        if (w.event.type.startsWith('xstate.done.')) {
          expect(s.context.callId).toBe(ev(w).output);
          expect(s.context.error).toBeNull();
          expect(effectsNow(w)).toEqual(['notify']);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Call placed',
            description: CALL_ME_MESSAGES.calling(s.context.phone.trim()),
          });
        } else {
          expect(typeof s.context.error).toBe('string');
          expect(s.context.error).not.toBe('');
          // a failure keeps the number typed and the last call placed
          expect(s.context.phone).toBe(w.previous?.context.phone);
          expect(s.context.callId).toBe(w.previous?.context.callId);
        }
      }
    },
    placing: (s, w) => {
      expect(s.context.agentId).toBeDefined();
      expect(E164_PATTERN.test(s.context.phone.trim())).toBe(true);
      expect(onlyRequest(w, 'placeCall')).toEqual({ agentId: s.context.agentId, to: s.context.phone.trim() });
    },
  },
});
