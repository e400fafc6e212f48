/**
 * assignAgent: 'Assign Agent to Phone Number'. The dialog starts from the
 * number (inbound unless it has an outbound agent); Save sends only the agent ids, the chosen direction
 * set and the other cleared, and only with an agent chosen; one save at a time.
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

const closed = {
  number: undefined,
  agentId: '',
  agentName: '',
  direction: 'inbound',
  search: '',
  agents: [],
  agentsError: undefined,
  error: undefined,
};

const outbound = {
  _id: 'num-2',
  phone: '+14155550101',
  inbound_agent_id: null,
  outbound_agent_id: 'agent-b',
  inbound_agent_name: null,
  outbound_agent_name: 'Bea',
};

export default defineInvariants({
  explore: {
    events: {
      // a number with an outbound agent opens on outbound with that agent chosen
      'dialog.open': [{ type: 'dialog.open', number: outbound }],
      'xstate.error.actor.loadAgents': [{ type: 'xstate.error.actor.loadAgents', error: new Error('not an API error') }],
    },
  },
  always: (s, w) => {
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    if (!s.matches({ open: { form: 'saving' } })) expectPending(w, 'saveAssignment', 0);
    if (!s.matches({ open: { agents: 'loading' } })) expectPending(w, 'loadAgents', 0);
    if (!w.event.type.includes('saveAssignment')) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    closed: (s, w) => {
      expect(s.context).toEqual(closed);
      if (cameFrom(w, 'open.form.saving')) {
        const prev = (w.previous as Snapshot).context;
        if (w.event.type.startsWith('xstate.done.')) {
          expect(effectsNow(w)).toEqual(['notify']);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Phone number agents updated',
            description: `${prev.agentName} now handles ${prev.direction} calls on ${prev.number.phone}.`,
          });
        } else {
          // deleted meanwhile (404): say so and reload the table without it
          expect(ev(w).error.status).toBe(404);
          expect(effectsNow(w)).toEqual(['notify', 'refreshList']);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Error',
            description: 'Failed to update phone number agent.',
            variant: 'destructive',
          });
        }
      }
    },
    open: (s, w) => {
      expect(s.context.number).toBeDefined();
      if (cameFrom(w, 'closed')) {
        // the form starts from the number: outbound when it has an outbound agent, with that agent
        const n = ev(w).number;
        const direction = n.outbound_agent_id ? 'outbound' : 'inbound';
        expect(s.context).toEqual({
          ...closed,
          number: n,
          direction,
          agentId: (direction === 'outbound' ? n.outbound_agent_id : n.inbound_agent_id) ?? '',
          agentName: (direction === 'outbound' ? n.outbound_agent_name : n.inbound_agent_name) ?? '',
        });
        expect(s.matches({ open: { agents: 'loading', form: 'editing' } })).toBe(true);
      }
      if (w.event.type === 'agent.search') {
        expect(s.context.search).toBe(ev(w).search);
        expect(s.matches({ open: { agents: 'debouncing' } })).toBe(true);
        // the search box never touches the form: a save in flight goes on
        expect(s.matches({ open: { form: 'saving' } })).toBe(cameFrom(w, 'open.form.saving'));
        if (cameFrom(w, 'open.form.saving')) expect(w.startedNow.filter((r) => r.src === 'saveAssignment')).toEqual([]);
      }
      if (w.event.type === 'agent.select') {
        expect(s.context.agentId).toBe(ev(w).agent._id);
        expect(s.context.agentName).toBe(ev(w).agent.name);
        expect(s.context.error).toBeUndefined();
      }
      if (w.event.type === 'direction.select') expect(s.context.direction).toBe(ev(w).direction);
    },
    'open.agents.debouncing': (_s, w) => {
      expectPending(w, 'loadAgents', 0);
    },
    'open.agents.loading': (s, w) => {
      expect(onlyRequest(w, 'loadAgents')).toEqual({ search: s.context.search });
      expect(s.hasTag('agentsLoading')).toBe(true);
    },
    'open.agents.ready': (s, w) => {
      if (cameFrom(w, 'open.agents.loading')) {
        expect(s.context.agents).toEqual(ev(w).output);
        expect(s.context.agentsError).toBeUndefined();
      }
    },
    'open.agents.failed': (s, w) => {
      expect(s.hasTag('agentsFailed')).toBe(true);
      if (cameFrom(w, 'open.agents.loading'))
        expect(s.context.agentsError).toBe(
          ev(w).error instanceof ApiError ? ev(w).error.message : 'Could not load the agents. Please try again.',
        );
      expect(typeof s.context.agentsError).toBe('string');
    },
    'open.form.editing': (s, w) => {
      if (w.event.type === 'form.submit') {
        // Save without an agent: the message, nothing sent
        expect(s.context.agentId).toBe('');
        expect(s.context.error).toBe('Please select an agent');
      }
      if (cameFrom(w, 'open.form.saving')) {
        // a failure keeps the choice, says so, and shows the server's reason under the agent
        const prev = (w.previous as Snapshot).context;
        expect({ ...s.context, error: undefined }).toEqual({ ...prev, error: undefined });
        const fe = ev(w).error?.fieldErrors ?? {};
        expect(s.context.error).toBe(fe.inbound_agent_id ?? fe.outbound_agent_id);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({
          title: 'Error',
          description: 'Failed to update phone number agent.',
          variant: 'destructive',
        });
      }
    },
    'open.form.saving': (s, w) => {
      // one save, of the agent ids only: the chosen direction set, the other cleared
      const { agentId, direction, number } = s.context;
      expect(agentId).not.toBe('');
      expect(onlyRequest(w, 'saveAssignment')).toEqual({
        id: number._id,
        body:
          direction === 'inbound'
            ? { inbound_agent_id: agentId, outbound_agent_id: null }
            : { inbound_agent_id: null, outbound_agent_id: agentId },
      });
      expect(s.hasTag('busy')).toBe(true);
      if (cameFrom(w, 'open.form.saving')) expect(w.startedNow.filter((r) => r.src === 'saveAssignment')).toEqual([]);
    },
  },
});
