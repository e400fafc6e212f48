import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { CALL_ME_MESSAGES } from '../../src/api/contract/telephony';
import { ApiError } from '../../src/api/errors';
import { callMeMachine, type PlaceCallInput } from '../../src/machines/callMe.machine';
import { describeModel } from './harness.js';

describeModel('callMe', callMeMachine, {
  input: { agentId: 'a'.repeat(24) },
  implementations: { actions: { notify: () => {} } },
  events: {
    'phone.change': [{ type: 'phone.change', value: '+14155550123' }],
    'agent.change': [{ type: 'agent.change', agentId: 'b'.repeat(24) }],
    'xstate.done.actor.0.callMe.placing': [{ type: 'xstate.done.actor.0.callMe.placing', output: 'c'.repeat(24) }],
    'xstate.error.actor.0.callMe.placing': [
      {
        type: 'xstate.error.actor.0.callMe.placing',
        error: new ApiError({ kind: 'http', status: 404, serverMessage: 'This phone number is not one of your numbers.' }),
      },
      { type: 'xstate.error.actor.0.callMe.placing', error: new Error(CALL_ME_MESSAGES.noNumber) },
    ],
  },
});

function start(agentId: string | undefined, place: (input: PlaceCallInput) => Promise<string>) {
  const notes: { title: string; description: string }[] = [];
  const placed: PlaceCallInput[] = [];
  const actor = createActor(
    callMeMachine.provide({
      actors: {
        placeCall: fromPromise<string, PlaceCallInput>(({ input }) => {
          placed.push(input);
          return place(input);
        }),
      },
      actions: { notify: (_, params) => void notes.push(params) },
    }),
    { input: { agentId } },
  ).start();
  return { actor, notes, placed };
}

describe('callMe machine', () => {
  it('places the call with the agent and the number given, and says so', async () => {
    const { actor, notes, placed } = start('a'.repeat(24), async () => 'c'.repeat(24));
    actor.send({ type: 'phone.change', value: ' +14155550123 ' });
    actor.send({ type: 'call.start' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await waitFor(actor, (s) => s.matches('idle'));
    expect(placed).toEqual([{ agentId: 'a'.repeat(24), to: '+14155550123' }]);
    expect(actor.getSnapshot().context.callId).toBe('c'.repeat(24));
    expect(notes).toEqual([{ title: 'Call placed', description: 'Calling +14155550123…' }]);
  });

  it('refuses a number not in E.164 and an unsaved agent without calling', () => {
    const unsaved = start(undefined, async () => 'x');
    unsaved.actor.send({ type: 'phone.change', value: '+14155550123' });
    unsaved.actor.send({ type: 'call.start' });
    expect(unsaved.actor.getSnapshot().context.error).toBe(CALL_ME_MESSAGES.saveFirst);
    const saved = start('a'.repeat(24), async () => 'x');
    saved.actor.send({ type: 'phone.change', value: '415 555 0123' });
    saved.actor.send({ type: 'call.start' });
    expect(saved.actor.getSnapshot().context.error).toBe(CALL_ME_MESSAGES.phoneInvalid);
    expect([...unsaved.placed, ...saved.placed]).toEqual([]);
    saved.actor.send({ type: 'phone.change', value: '+14155550123' });
    expect(saved.actor.getSnapshot().context.error).toBeNull();
  });

  it('shows why the call could not be placed', async () => {
    const { actor } = start('a'.repeat(24), async () => {
      throw new Error(CALL_ME_MESSAGES.noNumber);
    });
    actor.send({ type: 'phone.change', value: '+14155550123' });
    actor.send({ type: 'call.start' });
    await waitFor(actor, (s) => s.matches('idle') && s.context.error !== null);
    expect(actor.getSnapshot().context.error).toBe(CALL_ME_MESSAGES.noNumber);
  });
});
