import { describe, expect, it, vi } from 'vitest';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../src/api/contract/agent/editor-form.js';
import { AGENT_IMPORT_MAX_BYTES, AGENT_IMPORT_MESSAGES } from '../../src/api/contract/agent/export.js';
import type { AgentResponse } from '../../src/api/contract/agent/responses.js';
import { ApiError } from '../../src/api/errors.js';
import {
  AGENT_CREATE_FAILED,
  agentImportMachine,
  type CreateInput,
  type ImportFile,
  readAgentFile,
} from '../../src/machines/agentImport.machine.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';

const payload = editorFormToSavePayload({
  ...AGENT_EDITOR_FORM_DEFAULTS,
  agentName: 'Imported',
  voice: 'Rachel',
  voiceId: 'v-1',
});
const fileOf = (text: string, name = 'agent.json', size = text.length): ImportFile => ({ name, size, text: async () => text });
const exportText = JSON.stringify({ format: 'parley.agent', version: 1, agent: payload });

describeModel('agentImport', agentImportMachine, {
  implementations: { actions: { notify: () => {} } },
  events: {
    'file.pick': [{ type: 'file.pick', file: { name: 'agent.json', size: 10 } }],
    'xstate.done.actor.readFile': [{ type: 'xstate.done.actor.readFile', output: { name: 'Imported' } }],
    'xstate.done.actor.createAgent': [
      { type: 'xstate.done.actor.createAgent', output: { success: true, data: { agent: { name: 'Imported' } } } },
    ],
  },
});

const flow = (create: (p: CreateInput) => Promise<AgentResponse>) => {
  const r = recordingActor(agentImportMachine, 'createAgent', create);
  return { ...r, created: r.calls };
};

describe('agentImport behaviour', () => {
  it('creates the agent of a valid export file and toasts its name', async () => {
    const { actor, toasts, created } = flow(
      async (p) => ({ success: true, data: { agent: { name: p.payload.name } } }) as AgentResponse,
    );
    actor.send({ type: 'file.pick', file: fileOf(exportText) });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await vi.waitFor(() => expect(toasts).toHaveLength(1));
    expect(created).toEqual([{ payload, idempotencyKey: expect.any(String) }]);
    expect(toasts[0]).toEqual({ title: 'Agent imported', description: '“Imported” has been added to your agents.' });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
  });

  it('a bad file toasts what is wrong and creates nothing', async () => {
    const { actor, toasts, created } = flow(async () => ({}) as AgentResponse);
    for (const [file, message] of [
      [fileOf('{ nope'), AGENT_IMPORT_MESSAGES.notJson],
      [fileOf('[1,2]'), AGENT_IMPORT_MESSAGES.notAgent],
      [fileOf(exportText, 'big.json', AGENT_IMPORT_MAX_BYTES + 1), AGENT_IMPORT_MESSAGES.tooLarge],
    ] as const) {
      actor.send({ type: 'file.pick', file });
      await vi.waitFor(() => expect(actor.getSnapshot().matches('idle')).toBe(true));
      expect(toasts.at(-1)).toEqual({ title: 'Import failed', description: message, variant: 'destructive' });
    }
    expect(created).toEqual([]);
  });

  it("the server's refusal is toasted with its msg, a network failure with a plain message", async () => {
    let answer: Error = new ApiError({ kind: 'http', status: 413, serverMessage: 'Agent is too large' });
    const { actor, toasts, created } = flow(async () => {
      throw answer;
    });
    actor.send({ type: 'file.pick', file: fileOf(exportText) });
    await vi.waitFor(() => expect(toasts).toHaveLength(1));
    expect(toasts[0]).toEqual({ title: 'Import failed', description: 'Agent is too large', variant: 'destructive' });
    answer = new ApiError({ kind: 'network' });
    actor.send({ type: 'file.pick', file: fileOf(exportText) });
    await vi.waitFor(() => expect(toasts).toHaveLength(2));
    expect(toasts[1]?.description).toBe(AGENT_CREATE_FAILED);
    // importing the same agent again after a failure is a retry of that create: the same Idempotency-Key
    expect(created[1]?.idempotencyKey).toBe(created[0]?.idempotencyKey);
  });

  it('readAgentFile answers the payload of a bare save payload too', async () => {
    expect(await readAgentFile(fileOf(JSON.stringify(payload)))).toEqual(payload);
  });
});
