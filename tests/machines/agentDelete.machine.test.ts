import { describe, expect, it, vi } from 'vitest';
import type { AgentDeleteResponse } from '../../src/api/contract/agent/responses.js';
import { ApiError } from '../../src/api/errors.js';
import { AGENT_DELETE_TOASTS, type AgentDeleteTarget, agentDeleteMachine } from '../../src/machines/agentDelete.machine.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';

const target: AgentDeleteTarget = { _id: 'agent-1', name: 'Front Desk' };

describeModel('agentDelete', agentDeleteMachine, {
  implementations: { actions: { notify: () => {}, refreshList: () => {} } },
  events: {
    'dialog.open': [{ type: 'dialog.open', agent: target }],
    'xstate.done.actor.deleteAgent': [
      { type: 'xstate.done.actor.deleteAgent', output: { success: true, msg: 'deleted', data: { _id: 'agent-1' } } },
    ],
    'xstate.error.actor.deleteAgent': [
      {
        type: 'xstate.error.actor.deleteAgent',
        error: new ApiError({ kind: 'http', status: 404, serverMessage: 'Agent not found' }),
      },
      { type: 'xstate.error.actor.deleteAgent', error: new ApiError({ kind: 'network' }) },
    ],
  },
});

const flow = (answer: (input: AgentDeleteTarget) => Promise<AgentDeleteResponse>) => {
  const r = recordingActor(agentDeleteMachine, 'deleteAgent', answer);
  return { ...r, deleted: r.calls };
};

describe('agentDelete behaviour', () => {
  it('Cancel closes without deleting; Confirm deletes, closes and toasts', async () => {
    const { actor, toasts, deleted } = flow(async (t) => ({ success: true, msg: 'ok', data: { _id: t._id } }));
    actor.send({ type: 'dialog.open', agent: target });
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches('closed')).toBe(true);
    expect(deleted).toEqual([]);

    actor.send({ type: 'dialog.open', agent: target });
    actor.send({ type: 'delete.confirm' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    // Cancel is disabled while deleting: the event changes nothing
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(deleted).toEqual([target]);
    expect(toasts).toEqual([{ title: 'Agent deleted', description: 'The agent has been deleted successfully.' }]);
  });

  it("a failure toasts the spec's message and stays open; an agent already gone closes and reloads the list", async () => {
    let answer: Error = new ApiError({ kind: 'http', status: 500, serverMessage: 'Internal error' });
    const { actor, toasts, refreshes } = flow(async () => {
      throw answer;
    });
    actor.send({ type: 'dialog.open', agent: target });
    actor.send({ type: 'delete.confirm' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('confirming')).toBe(true));
    expect(toasts).toEqual([AGENT_DELETE_TOASTS.failed]);
    expect(toasts[0]).toEqual({
      title: 'Error',
      description: 'An error occurred while deleting the agent',
      variant: 'destructive',
    });
    expect(refreshes()).toBe(0);

    answer = new ApiError({ kind: 'http', status: 404, serverMessage: 'Agent not found' });
    actor.send({ type: 'delete.confirm' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(toasts).toHaveLength(2);
    expect(refreshes()).toBe(1);
  });
});
