import { describe, expect, it, vi } from 'vitest';
import { AGENT_DIALOG_DEFAULTS } from '../../src/api/contract/agent/defaults.js';
import { AGENT_MESSAGES } from '../../src/api/contract/agent/messages.js';
import type { AgentResponse } from '../../src/api/contract/agent/responses.js';
import { ApiError } from '../../src/api/errors.js';
import {
  AGENT_UPDATE_TOASTS,
  type AgentDialogRecord,
  type AgentUpdateInput,
  agentUpdateMachine,
} from '../../src/machines/agentUpdate.machine.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';

/** A listed agent with every dialog field set (as GET /agent answers it). */
const row: AgentDialogRecord = {
  _id: 'agent-1',
  version: 3,
  agent_name: 'Front Desk',
  voice_id: 'voice-a',
  voice_model: 'turbo',
  language: 'de-DE',
  voice_temperature: 0.4,
  voice_speed: 1.2,
  volume: 0.8,
  enable_backchannel: false,
  backchannel_frequency: 0.5,
  interruption_sensitivity: 0.6,
  ambient_sound_volume: 0.2,
  opt_out_sensitive_data_storage: true,
  normalize_for_speech: false,
  end_call_after_silence_ms: 60_000,
  enable_voicemail_detection: false,
  max_call_duration_ms: 3_600_000,
  voicemail_detection_timeout_ms: 20_000,
};
/** A row that lacks most fields: the dialog fills the specification's defaults. */
const sparse: AgentDialogRecord = { _id: 'agent-2', version: 1, agent_name: 'Sparse' };

const http = (status: number, msg: string, errors?: Record<string, string>) =>
  new ApiError({ kind: 'http', status, serverMessage: msg, fieldErrors: errors });

describeModel('agentUpdate', agentUpdateMachine, {
  implementations: { actions: { notify: () => {}, refreshList: () => {} } },
  events: {
    'dialog.open': [{ type: 'dialog.open', agent: row }],
    'field.change': [
      { type: 'field.change', field: 'agent_name', value: '' },
      { type: 'field.change', field: 'agent_name', value: 'Reception' },
    ],
    'xstate.done.actor.saveAgent': [{ type: 'xstate.done.actor.saveAgent', output: { success: true } }],
    'xstate.error.actor.saveAgent': [
      { type: 'xstate.error.actor.saveAgent', error: http(409, AGENT_MESSAGES.conflict) },
      { type: 'xstate.error.actor.saveAgent', error: new ApiError({ kind: 'network' }) },
    ],
  },
});

const flow = (answer: (input: AgentUpdateInput) => Promise<AgentResponse>) => {
  const r = recordingActor(agentUpdateMachine, 'saveAgent', answer);
  return { ...r, saved: r.calls };
};

describe('agentUpdate behaviour', () => {
  it('opens with the selected row, and with the dialog defaults for what a row lacks', () => {
    const { actor } = flow(() => new Promise(() => {}));
    actor.send({ type: 'dialog.open', agent: row });
    const { _id, version, ...fields } = row;
    expect(actor.getSnapshot().context.values).toEqual(fields);
    actor.send({ type: 'field.change', field: 'agent_name', value: 'Changed' });
    actor.send({ type: 'dialog.close' });

    actor.send({ type: 'dialog.open', agent: sparse });
    expect(actor.getSnapshot().context.values).toEqual({
      ...AGENT_DIALOG_DEFAULTS,
      agent_name: 'Sparse',
      voice_id: '',
      voice_model: '',
    });
    // opening the first row again starts from it, not from the abandoned edit
    actor.send({ type: 'dialog.close' });
    actor.send({ type: 'dialog.open', agent: row });
    expect(actor.getSnapshot().context.values.agent_name).toBe('Front Desk');
  });

  it('shows its messages and sends nothing while the form is invalid', () => {
    const { actor, saved } = flow(() => new Promise(() => {}));
    actor.send({ type: 'dialog.open', agent: sparse });
    actor.send({ type: 'field.change', field: 'agent_name', value: '   ' });
    actor.send({ type: 'field.change', field: 'language', value: '' });
    actor.send({ type: 'field.change', field: 'max_call_duration_ms', value: 1.5 });
    actor.send({ type: 'field.change', field: 'voicemail_detection_timeout_ms', value: Number.NaN });
    actor.send({ type: 'field.change', field: 'voice_speed', value: 2.5 });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().matches('editing')).toBe(true);
    expect(actor.getSnapshot().context.errors).toEqual({
      agent_name: 'Agent name is required',
      voice_id: 'Voice ID is required',
      voice_model: 'Voice model is required',
      language: 'Language is required',
      max_call_duration_ms: AGENT_MESSAGES.positiveInteger,
      voicemail_detection_timeout_ms: AGENT_MESSAGES.positiveInteger,
      voice_speed: 'Must be between 0 and 2',
    });
    expect(saved).toEqual([]);
    // typing in a field clears its message
    actor.send({ type: 'field.change', field: 'voice_id', value: 'v' });
    expect(actor.getSnapshot().context.errors.voice_id).toBeUndefined();
  });

  it('saves the fields with the version, closes and toasts; the input is gone only after success', async () => {
    const { actor, saved, toasts } = flow(async () => ({ success: true }) as AgentResponse);
    actor.send({ type: 'dialog.open', agent: row });
    actor.send({ type: 'field.change', field: 'agent_name', value: '  Reception ' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    // closing is not possible while saving (the input would be lost if the save then failed)
    actor.send({ type: 'dialog.close' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    const { _id, version, ...fields } = row;
    expect(saved).toEqual([
      { id: 'agent-1', body: { ...fields, agent_name: 'Reception', version: 3 }, idempotencyKey: expect.any(String) },
    ]);
    expect(toasts).toEqual([AGENT_UPDATE_TOASTS.updated]);
    expect(toasts[0]).toEqual({ title: 'Agent updated', description: 'The agent has been updated successfully.' });
  });

  it('a failure keeps the dialog open with the input; 409 shows the server msg and reloads the list', async () => {
    let answer: Error = http(409, AGENT_MESSAGES.conflict);
    const { actor, toasts, refreshes, calls } = flow(async () => {
      throw answer;
    });
    actor.send({ type: 'dialog.open', agent: row });
    actor.send({ type: 'field.change', field: 'voice_id', value: 'voice-z' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('editing')).toBe(true));
    expect(actor.getSnapshot().context.values.voice_id).toBe('voice-z');
    expect(toasts.at(-1)).toEqual({ title: 'Error', description: AGENT_MESSAGES.conflict, variant: 'destructive' });
    expect(refreshes()).toBe(1);

    answer = new ApiError({ kind: 'network' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(toasts).toHaveLength(2));
    expect(toasts[1]).toEqual({ title: 'Error', description: 'Failed to update agent', variant: 'destructive' });
    expect(actor.getSnapshot().matches('editing')).toBe(true);
    expect(refreshes()).toBe(1);

    // the retry of the same save carried the same Idempotency-Key (a lost answer is replayed, not refused)
    expect(calls.map((c) => c.idempotencyKey)).toEqual([calls[0]?.idempotencyKey, calls[0]?.idempotencyKey]);

    answer = http(400, "Invalid field 'voice_id'", { voice_id: 'Must be at most 200 characters' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(toasts).toHaveLength(3));
    expect(actor.getSnapshot().context.errors).toEqual({ voice_id: 'Must be at most 200 characters' });
    expect(actor.getSnapshot().context.values.voice_id).toBe('voice-z');
  });
});
