/**
 * agentUpdate: 'Update Agent'; the form resets from the row on open; one PUT of the valid fields with
 * the row's version; a retry of the same save reuses its key; a stale row (404/409) reloads the list.
 */
import { expect } from 'vitest';
import { agentToDialogForm } from '../../../src/api/contract/agent/dialog.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

const failed = (msg?: string) => ({ title: 'Error', description: msg || 'Failed to update agent', variant: 'destructive' });

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'saveAgent', s.matches('saving') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('busy')).toBe(s.matches('saving'));
    if (!cameFrom(w, 'saving')) expect(effectsNow(w)).toEqual([]);
    if (w.event.type === 'field.change') {
      expect(s.context.values[ev(w).field]).toBe(ev(w).value);
      expect(s.context.errors[ev(w).field]).toBeUndefined();
    }
  },
  states: {
    closed: (s, w) => {
      expect(s.context).toEqual({
        agentId: '',
        version: undefined,
        values: agentToDialogForm({}),
        errors: {},
        attempt: undefined,
      });
      if (cameFrom(w, 'saving')) {
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({
          title: 'Agent updated',
          description: 'The agent has been updated successfully.',
        });
      }
    },
    editing: (s, w) => {
      expect(s.context.agentId).not.toBe('');
      if (cameFrom(w, 'closed')) {
        const a = ev(w).agent;
        expect(s.context).toEqual({
          agentId: a._id,
          version: a.version,
          values: agentToDialogForm(a),
          errors: {},
          attempt: undefined,
        });
      }
      if (w.event.type === 'form.submit') {
        expect(Object.values(s.context.errors).filter(Boolean).length).toBeGreaterThan(0);
        if (s.context.values.agent_name.trim() === '') expect(s.context.errors.agent_name).toBeTruthy();
      }
      if (cameFrom(w, 'saving')) {
        const prev = w.previous as Snapshot;
        const e = ev(w).error;
        expect(s.context.values).toEqual(prev.context.values);
        const stale = e?.status === 404 || e?.status === 409;
        expect(effectsNow(w)).toEqual(stale ? ['notify', 'refreshList'] : ['notify']);
        expect(paramsNow(w, 'notify')).toEqual(failed(e?.serverMessage));
        if (!stale) expect(s.context.errors).toEqual(e?.fieldErrors ?? {});
      }
    },
    saving: (s, w) => {
      const request = onlyRequest(w, 'saveAgent');
      expect(request.id).toBe(s.context.agentId);
      expect(request.body).toMatchObject({ ...s.context.values, version: s.context.version });
      expect(request.idempotencyKey).toBe(s.context.attempt.key);
      expect(s.context.errors).toEqual({});
      if (cameFrom(w, 'editing')) {
        const saves = w.started.filter((r) => r.src === 'saveAgent');
        const before = saves.at(-2);
        if (before) {
          const b = before.input as typeof request;
          const same = JSON.stringify([b.id, b.body]) === JSON.stringify([request.id, request.body]);
          const reopened = w.events.slice(before.step).some((e) => e.type === 'dialog.open');
          if (same && !reopened) expect(request.idempotencyKey).toBe(b.idempotencyKey);
          else expect(request.idempotencyKey).not.toBe(b.idempotencyKey);
        }
      }
    },
  },
});
