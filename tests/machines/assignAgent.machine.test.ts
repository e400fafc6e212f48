import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { PhoneNumberResponse } from '../../src/api/contract/phone.js';
import { ApiError } from '../../src/api/errors.js';
import {
  type AgentOption,
  ASSIGN_TOASTS,
  type AssignSaveInput,
  type AssignTarget,
  assignAgentMachine,
} from '../../src/machines/assignAgent.machine.js';
import { TABLE_DEBOUNCE_MS } from '../../src/ui/constants.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';

const inboundNumber: AssignTarget = {
  _id: 'num-1',
  phone: '+14155550100',
  inbound_agent_id: 'agent-a',
  outbound_agent_id: null,
  inbound_agent_name: 'Ava',
  outbound_agent_name: null,
};
const outboundNumber: AssignTarget = {
  _id: 'num-2',
  phone: '+14155550101',
  inbound_agent_id: null,
  outbound_agent_id: 'agent-b',
  inbound_agent_name: null,
  outbound_agent_name: 'Bea',
};
const bare: AssignTarget = { ...inboundNumber, _id: 'num-3', inbound_agent_id: null, inbound_agent_name: null };

const ava: AgentOption = { _id: 'agent-a', name: 'Ava' };
const bea: AgentOption = { _id: 'agent-b', name: 'Bea' };

describeModel('assignAgent', assignAgentMachine, {
  implementations: { actions: { notify: () => {}, refreshList: () => {} } },
  events: {
    // a number with no agent: both branches of Save (no agent chosen, then one chosen) are reachable
    'dialog.open': [{ type: 'dialog.open', number: bare }],
    'agent.search': [{ type: 'agent.search', search: 'be' }],
    'agent.select': [{ type: 'agent.select', agent: bea }],
    'direction.select': [{ type: 'direction.select', direction: 'inbound' }],
    'xstate.done.actor.loadAgents': [{ type: 'xstate.done.actor.loadAgents', output: [ava, bea] }],
    'xstate.error.actor.loadAgents': [{ type: 'xstate.error.actor.loadAgents', error: new ApiError({ kind: 'network' }) }],
    'xstate.done.actor.saveAssignment': [{ type: 'xstate.done.actor.saveAssignment', output: { success: true } }],
    'xstate.error.actor.saveAssignment': [
      {
        type: 'xstate.error.actor.saveAssignment',
        error: new ApiError({ kind: 'http', status: 404, serverMessage: 'Phone number not found' }),
      },
      {
        type: 'xstate.error.actor.saveAssignment',
        error: new ApiError({
          kind: 'http',
          status: 400,
          serverMessage: "Invalid field 'inbound_agent_id'",
          fieldErrors: { inbound_agent_id: 'Agent not found' },
        }),
      },
    ],
  },
  // 2,021 traversal steps: the largest graph of the machines
  limit: 5000,
});

/** A started assignAgent actor whose agent list answers `found` and whose save answers `answer`. */
function flow(answer: (input: AssignSaveInput) => Promise<PhoneNumberResponse>, found: AgentOption[] = [ava, bea]) {
  const searches: string[] = [];
  const logic = assignAgentMachine.provide({
    delays: { searchDelay: TABLE_DEBOUNCE_MS },
    actors: {
      loadAgents: fromPromise<AgentOption[], { search: string }>(async ({ input }) => {
        searches.push(input.search);
        return found.filter((a) => a.name.toLowerCase().includes(input.search.toLowerCase()));
      }),
    },
  });
  const r = recordingActor(logic, 'saveAssignment', answer);
  return { ...r, saved: r.calls as AssignSaveInput[], searches };
}
const ok = async () => ({ success: true }) as PhoneNumberResponse;

describe('assignAgent behaviour', () => {
  it('starts inbound when the number has no outbound agent, else outbound, with that agent chosen', () => {
    const { actor } = flow(ok);
    actor.send({ type: 'dialog.open', number: inboundNumber });
    expect(actor.getSnapshot().context).toMatchObject({ direction: 'inbound', agentId: 'agent-a', agentName: 'Ava' });
    actor.send({ type: 'dialog.close' });
    actor.send({ type: 'dialog.open', number: outboundNumber });
    expect(actor.getSnapshot().context).toMatchObject({ direction: 'outbound', agentId: 'agent-b', agentName: 'Bea' });
    actor.send({ type: 'dialog.close' });
    actor.send({ type: 'dialog.open', number: bare });
    expect(actor.getSnapshot().context).toMatchObject({ direction: 'inbound', agentId: '', agentName: '' });
  });

  it("says 'Please select an agent' and sends nothing when no agent is chosen", () => {
    const { actor, saved } = flow(ok);
    actor.send({ type: 'dialog.open', number: bare });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().context.error).toBe('Please select an agent');
    expect(actor.getSnapshot().hasTag('busy')).toBe(false);
    expect(saved).toEqual([]);
    actor.send({ type: 'agent.select', agent: bea });
    expect(actor.getSnapshot().context.error).toBeUndefined();
  });

  it('inbound sets inbound_agent_id and clears outbound; outbound the reverse; success closes and toasts', async () => {
    const { actor, saved, toasts } = flow(ok);
    actor.send({ type: 'dialog.open', number: outboundNumber });
    actor.send({ type: 'direction.select', direction: 'inbound' });
    actor.send({ type: 'agent.select', agent: ava });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    // Cancel waits while saving
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(saved).toEqual([{ id: 'num-2', body: { inbound_agent_id: 'agent-a', outbound_agent_id: null } }]);
    expect(toasts).toEqual([ASSIGN_TOASTS.updated('Ava', 'inbound', outboundNumber.phone)]);
    expect(toasts[0]?.title).toBe('Phone number agents updated');

    actor.send({ type: 'dialog.open', number: inboundNumber });
    actor.send({ type: 'direction.select', direction: 'outbound' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(saved[1]).toEqual({ id: 'num-1', body: { inbound_agent_id: null, outbound_agent_id: 'agent-a' } });
  });

  it("a failure toasts 'Failed to update phone number agent.' and keeps the choice; a deleted number closes and reloads", async () => {
    let answer: Error = new ApiError({
      kind: 'http',
      status: 400,
      serverMessage: "Invalid field 'outbound_agent_id'",
      fieldErrors: { outbound_agent_id: 'Agent not found' },
    });
    const { actor, toasts, refreshes } = flow(async () => {
      throw answer;
    });
    actor.send({ type: 'dialog.open', number: outboundNumber });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('busy')).toBe(false));
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ agentId: 'agent-b', direction: 'outbound', error: 'Agent not found' });
    expect(toasts).toEqual([{ title: 'Error', description: 'Failed to update phone number agent.', variant: 'destructive' }]);
    expect(refreshes()).toBe(0);

    answer = new ApiError({ kind: 'http', status: 404, serverMessage: 'Phone number not found' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(toasts).toHaveLength(2);
    expect(refreshes()).toBe(1);
  });

  it('searches the agents 300 ms after typing stops, once for a burst of keys', async () => {
    vi.useFakeTimers();
    try {
      const { actor, searches } = flow(ok);
      actor.send({ type: 'dialog.open', number: bare });
      await vi.advanceTimersByTimeAsync(0);
      expect(actor.getSnapshot().context.agents).toEqual([ava, bea]);
      actor.send({ type: 'agent.search', search: 'b' });
      await vi.advanceTimersByTimeAsync(TABLE_DEBOUNCE_MS - 50);
      actor.send({ type: 'agent.search', search: 'be' });
      await vi.advanceTimersByTimeAsync(TABLE_DEBOUNCE_MS - 50);
      expect(searches).toEqual(['']);
      await vi.advanceTimersByTimeAsync(50);
      expect(searches).toEqual(['', 'be']);
      expect(actor.getSnapshot().context.agents).toEqual([bea]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a failed agent list says why and Retry asks again', async () => {
    let fail = true;
    const logic = assignAgentMachine.provide({
      actors: {
        loadAgents: fromPromise<AgentOption[], { search: string }>(async () => {
          if (fail) throw new ApiError({ kind: 'network' });
          return [ava];
        }),
      },
    });
    const actor = createActor(logic).start();
    actor.send({ type: 'dialog.open', number: bare });
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('agentsFailed')).toBe(true));
    expect(actor.getSnapshot().context.agentsError).toBe(new ApiError({ kind: 'network' }).message);
    fail = false;
    actor.send({ type: 'agents.retry' });
    await vi.waitFor(() => expect(actor.getSnapshot().context.agents).toEqual([ava]));
    expect(actor.getSnapshot().hasTag('agentsFailed')).toBe(false);
  });
});
