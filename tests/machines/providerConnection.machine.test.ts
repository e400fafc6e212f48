import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import type {
  ProviderDisconnectResponse,
  ProviderFieldsResponse,
  ProviderSaveResponse,
} from '../../src/api/contract/provider.js';
import { ApiError } from '../../src/api/errors.js';
import type { ToastMessage } from '../../src/api/toast.js';
import {
  type ProviderConnectionInput,
  providerConnectionMachine,
  type SaveInput,
} from '../../src/machines/providerConnection.machine.js';
import { describeModel } from './harness.js';

const twilio = { name: 'twilio', label: 'Twilio' };
const notConnected: ProviderConnectionInput = { ...twilio, connected: false };
const connected: ProviderConnectionInput = { ...twilio, connected: true };

const emptyFields: ProviderFieldsResponse = {
  success: true,
  name: 'twilio',
  label: 'Twilio',
  _id: null,
  connected: false,
  keys: [
    { name: 'Account SID', value: '', secret: false },
    { name: 'Auth Token', value: '', secret: true },
  ],
};
const maskedFields: ProviderFieldsResponse = {
  ...emptyFields,
  _id: 'c0ffee',
  connected: true,
  keys: [
    { name: 'Account SID', value: 'ACx…abcd', secret: false },
    { name: 'Auth Token', value: '••••9876', secret: true },
  ],
};
const savedResponse: ProviderSaveResponse = {
  success: true,
  msg: 'ok',
  provider: {
    _id: 'c0ffee',
    name: 'twilio',
    label: 'Twilio',
    company: 'co',
    connected: true,
    keys: [
      { name: 'Account SID', secret: false },
      { name: 'Auth Token', secret: true },
    ],
  },
};

describeModel('providerConnection', providerConnectionMachine, {
  inputs: [notConnected, connected],
  implementations: { actions: { notify: () => {} } },
  events: {
    'field.change': [
      { type: 'field.change', name: 'Account SID', value: 'AC123' },
      { type: 'field.change', name: 'Auth Token', value: 'tok-123' },
      { type: 'field.change', name: 'Auth Token', value: '  ' },
    ],
    'status.sync': [
      { type: 'status.sync', connected: true },
      { type: 'status.sync', connected: false },
    ],
    'xstate.done.actor.loadFields': (snap) => [
      { type: 'xstate.done.actor.loadFields', output: snap.context.connected ? maskedFields : emptyFields },
    ],
    'xstate.done.actor.saveConnection': [
      { type: 'xstate.done.actor.saveConnection', output: savedResponse },
      { type: 'xstate.done.actor.saveConnection', output: { ...savedResponse, warning: 'Could not reach Twilio.' } },
    ],
    'xstate.error.actor.saveConnection': [
      {
        type: 'xstate.error.actor.saveConnection',
        error: new ApiError({ kind: 'http', status: 400, serverMessage: 'Auth Token: A value is required' }),
      },
      {
        type: 'xstate.error.actor.saveConnection',
        error: new ApiError({
          kind: 'http',
          status: 400,
          serverMessage: 'Twilio refused the key: Authenticate',
          fieldErrors: { 'Auth Token': 'Authenticate' },
        }),
      },
    ],
    'xstate.done.actor.disconnect': [
      { type: 'xstate.done.actor.disconnect', output: { success: true, msg: 'ok' } satisfies ProviderDisconnectResponse },
    ],
  },
});

/** A real actor whose API effects are scripted and recorded. */
function flow(
  input: ProviderConnectionInput,
  answers: {
    fields?: () => Promise<ProviderFieldsResponse>;
    save?: (input: SaveInput) => Promise<ProviderSaveResponse>;
    disconnect?: () => Promise<ProviderDisconnectResponse>;
  },
) {
  const toasts: ToastMessage[] = [];
  const saves: SaveInput[] = [];
  const actor = createActor(
    providerConnectionMachine.provide({
      actors: {
        loadFields: fromPromise(() => (answers.fields ?? (async () => emptyFields))()),
        saveConnection: fromPromise<ProviderSaveResponse, SaveInput>(({ input: i }) => {
          saves.push(i);
          return (answers.save ?? (async () => savedResponse))(i);
        }),
        disconnect: fromPromise(() => (answers.disconnect ?? (async () => ({ success: true, msg: 'ok' })))()),
      },
      actions: { notify: (_, t) => toasts.push(t) },
    }),
    { input },
  ).start();
  return { actor, toasts, saves };
}

const settled = (actor: ReturnType<typeof flow>['actor']) => waitFor(actor, (s) => !s.hasTag('loading') && !s.hasTag('busy'));

describe('providerConnection behaviour', () => {
  it("empty fields: 'Missing information' names them and no call is made; the input stays", async () => {
    const { actor, toasts, saves } = flow(notConnected, {});
    expect(actor.getSnapshot().matches({ idle: 'notConnected' })).toBe(true);
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    actor.send({ type: 'field.change', name: 'Account SID', value: 'AC123' });
    actor.send({ type: 'form.submit' });
    expect(saves).toEqual([]);
    expect(toasts).toEqual([
      { title: 'Missing information', description: 'Please fill in the following fields: Auth Token', variant: 'destructive' },
    ]);
    expect(actor.getSnapshot().hasTag('editing')).toBe(true);
    expect(actor.getSnapshot().context.values).toEqual({ 'Account SID': 'AC123', 'Auth Token': '' });
    // blanks count as empty
    actor.send({ type: 'field.change', name: 'Account SID', value: '   ' });
    actor.send({ type: 'form.submit' });
    expect(toasts[1]?.description).toBe('Please fill in the following fields: Account SID, Auth Token');
    expect(saves).toEqual([]);
    // each empty field says so under it; typing in one clears its error
    expect(actor.getSnapshot().context.fieldErrors).toEqual({
      'Account SID': 'A value is required',
      'Auth Token': 'A value is required',
    });
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'tok' });
    expect(actor.getSnapshot().context.fieldErrors).toEqual({ 'Account SID': 'A value is required' });
  });

  it("a key the provider refuses: the spec's toast with the server msg, and the provider's reason under its field", async () => {
    const refusal = new ApiError({
      kind: 'http',
      status: 400,
      serverMessage: 'Twilio refused the key: Twilio refused the Account SID and Auth Token (20003 Authenticate).',
      fieldErrors: { 'Auth Token': 'Twilio refused the Account SID and Auth Token (20003 Authenticate).', Other: 'x' },
    });
    const { actor, toasts } = flow(notConnected, { save: () => Promise.reject(refusal) });
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    actor.send({ type: 'field.change', name: 'Account SID', value: 'AC1' });
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'wrong' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await settled(actor);
    expect(toasts).toEqual([{ title: 'Error', description: refusal.serverMessage, variant: 'destructive' }]);
    expect(actor.getSnapshot().hasTag('editing')).toBe(true);
    // only the dialog's own fields; the input stays
    expect(actor.getSnapshot().context.fieldErrors).toEqual({ 'Auth Token': refusal.fieldErrors['Auth Token'] });
    expect(actor.getSnapshot().context.values).toEqual({ 'Account SID': 'AC1', 'Auth Token': 'wrong' });
  });

  it('saved while the provider could not be asked: the success toast, with the warning under its words', async () => {
    const warning = 'Could not reach Twilio to check the key; saved anyway.';
    const { actor, toasts } = flow(notConnected, { save: async () => ({ ...savedResponse, warning }) });
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    actor.send({ type: 'field.change', name: 'Account SID', value: 'AC1' });
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'tok' });
    actor.send({ type: 'form.submit' });
    await settled(actor);
    expect(toasts).toEqual([{ title: 'Success', description: 'Twilio has been successfully connected.', note: warning }]);
    expect(actor.getSnapshot().matches({ idle: 'connected' })).toBe(true);
  });

  it("an optional field (OpenAI's Base URL) is never 'Missing information' and is sent empty", async () => {
    const openaiFields: ProviderFieldsResponse = {
      success: true,
      name: 'openai',
      label: 'OpenAI',
      _id: null,
      connected: false,
      keys: [
        { name: 'API Key', value: '', secret: true },
        { name: 'Base URL', value: '', secret: false, optional: true, url: true },
      ],
    };
    const { actor, toasts, saves } = flow(
      { name: 'openai', label: 'OpenAI', connected: false },
      { fields: async () => openaiFields },
    );
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    expect(actor.getSnapshot().context.fields).toEqual([
      { name: 'API Key', secret: true },
      { name: 'Base URL', secret: false, optional: true, url: true },
    ]);
    actor.send({ type: 'form.submit' });
    expect(toasts).toEqual([
      { title: 'Missing information', description: 'Please fill in the following fields: API Key', variant: 'destructive' },
    ]);
    actor.send({ type: 'field.change', name: 'API Key', value: 'sk-123' });
    actor.send({ type: 'form.submit' });
    await settled(actor);
    expect(saves.map((s) => s.keys)).toEqual([
      [
        { name: 'API Key', value: 'sk-123' },
        { name: 'Base URL', value: '' },
      ],
    ]);
  });

  it('connects with trimmed values, toasts the spec line, ends connected and forgets the input', async () => {
    const { actor, toasts, saves } = flow(notConnected, {});
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    actor.send({ type: 'field.change', name: 'Account SID', value: ' AC123 ' });
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'secret-token' });
    actor.send({ type: 'form.submit' });
    await settled(actor);
    expect(saves).toEqual([
      {
        name: 'twilio',
        connectionId: null,
        keys: [
          { name: 'Account SID', value: 'AC123' },
          { name: 'Auth Token', value: 'secret-token' },
        ],
        idempotencyKey: expect.any(String),
      },
    ]);
    expect(toasts).toEqual([{ title: 'Success', description: 'Twilio has been successfully connected.' }]);
    const snap = actor.getSnapshot();
    expect(snap.matches({ idle: 'connected' })).toBe(true);
    expect(snap.context).toMatchObject({ connected: true, connectionId: 'c0ffee', values: {}, fields: [] });
  });

  it('update sends the untouched mask back (the server keeps that secret) and the changed value', async () => {
    const { actor, toasts, saves } = flow(connected, { fields: async () => maskedFields });
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    expect(actor.getSnapshot().context.values).toEqual({ 'Account SID': 'ACx…abcd', 'Auth Token': '••••9876' });
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'rotated' });
    actor.send({ type: 'form.submit' });
    await settled(actor);
    expect(saves[0]).toEqual({
      name: 'twilio',
      connectionId: 'c0ffee',
      keys: [
        { name: 'Account SID', value: 'ACx…abcd' },
        { name: 'Auth Token', value: 'rotated' },
      ],
      idempotencyKey: expect.any(String),
    });
    expect(toasts).toEqual([{ title: 'Success', description: 'Twilio has been updated.' }]);
  });

  it('a failed save keeps the dialog and its input, with the server msg or the spec fallback', async () => {
    const answers = [
      () => Promise.reject(new ApiError({ kind: 'http', status: 409, serverMessage: 'Twilio is already connected.' })),
      () => Promise.reject(new ApiError({ kind: 'network' })),
    ];
    const { actor, toasts, saves } = flow(notConnected, {
      save: () => (answers.shift() ?? (async () => savedResponse))(),
    });
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    actor.send({ type: 'field.change', name: 'Account SID', value: 'AC1' });
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'tok' });
    for (let i = 0; i < 2; i += 1) {
      actor.send({ type: 'form.submit' });
      await settled(actor);
      expect(actor.getSnapshot().hasTag('editing')).toBe(true);
      expect(actor.getSnapshot().context.values).toEqual({ 'Account SID': 'AC1', 'Auth Token': 'tok' });
    }
    expect(toasts).toEqual([
      { title: 'Error', description: 'Twilio is already connected.', variant: 'destructive' },
      { title: 'Error', description: 'Failed to connect the provider. Please try again.', variant: 'destructive' },
    ]);
    // every retry of the same values is one action: one Idempotency-Key; changed values are a new action
    expect(new Set(saves.map((x) => x.idempotencyKey)).size).toBe(1);
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'tok2' });
    actor.send({ type: 'form.submit' });
    await settled(actor);
    expect(saves).toHaveLength(3);
    expect(saves[2]?.idempotencyKey).not.toBe(saves[0]?.idempotencyKey);
    // connected: the dialog forgot the input and the key
    expect(actor.getSnapshot().context.attempt).toBeUndefined();

    const update = flow(connected, {
      fields: async () => maskedFields,
      save: () => Promise.reject(new ApiError({ kind: 'timeout' })),
    });
    update.actor.send({ type: 'dialog.open' });
    await settled(update.actor);
    update.actor.send({ type: 'form.submit' });
    await settled(update.actor);
    expect(update.toasts).toEqual([
      { title: 'Error', description: 'Failed to update the provider. Please try again.', variant: 'destructive' },
    ]);
  });

  it('a failed fields load toasts the spec line and keeps the dialog with Retry; closing forgets everything', async () => {
    const answers = [() => Promise.reject(new ApiError({ kind: 'network' })), async () => emptyFields];
    const { actor, toasts } = flow(notConnected, { fields: () => (answers.shift() as () => Promise<ProviderFieldsResponse>)() });
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    expect(actor.getSnapshot().hasTag('fieldsFailed')).toBe(true);
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    expect(toasts).toEqual([
      { title: 'Error', description: 'Failed to load provider fields. Please try again.', variant: 'destructive' },
    ]);
    actor.send({ type: 'fields.retry' });
    await settled(actor);
    expect(actor.getSnapshot().hasTag('editing')).toBe(true);
    actor.send({ type: 'field.change', name: 'Auth Token', value: 'typed' });
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches({ idle: 'notConnected' })).toBe(true);
    expect(actor.getSnapshot().context.values).toEqual({});
  });

  it('disconnect asks first; a failure keeps the confirmation; success ends not connected', async () => {
    const answers = [
      () => Promise.reject(new ApiError({ kind: 'http', status: 404, serverMessage: 'Twilio is not connected.' })),
      () => Promise.reject(new ApiError({ kind: 'network' })),
      async () => ({ success: true, msg: 'ok' }),
    ];
    const { actor, toasts } = flow(connected, {
      disconnect: () => (answers.shift() as () => Promise<ProviderDisconnectResponse>)(),
    });
    actor.send({ type: 'disconnect.request' });
    actor.send({ type: 'disconnect.cancel' });
    expect(actor.getSnapshot().matches({ idle: 'connected' })).toBe(true);
    actor.send({ type: 'disconnect.request' });
    for (let i = 0; i < 3; i += 1) {
      actor.send({ type: 'disconnect.confirm' });
      await settled(actor);
    }
    expect(toasts).toEqual([
      { title: 'Error', description: 'Twilio is not connected.', variant: 'destructive' },
      { title: 'Error', description: 'Failed to disconnect the provider. Please try again.', variant: 'destructive' },
      { title: 'Success', description: 'Twilio has been disconnected.' },
    ]);
    expect(actor.getSnapshot().matches({ idle: 'notConnected' })).toBe(true);
    expect(actor.getSnapshot().can({ type: 'disconnect.request' })).toBe(false);
  });

  it('the screen syncs the status only while no dialog is open', async () => {
    const { actor } = flow(notConnected, {});
    actor.send({ type: 'status.sync', connected: true });
    expect(actor.getSnapshot().matches({ idle: 'connected' })).toBe(true);
    actor.send({ type: 'dialog.open' });
    await settled(actor);
    expect(actor.getSnapshot().can({ type: 'status.sync', connected: false })).toBe(false);
  });
});
