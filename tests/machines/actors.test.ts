/**
 * The machines' own actor implementations (the API calls they make when the app runs them), with the
 * API objects spied: what each asks the server for, with which options, and what it hands back to the
 * machine. The model walks fake these actors; this file checks the real ones.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AnyActorLogic, createActor, toPromise } from 'xstate';
import { account } from '../../src/api/account.js';
import { agents } from '../../src/api/agents.js';
import { batches } from '../../src/api/batches.js';
import { billing } from '../../src/api/billing.js';
import { PHONE_LIST_LIMIT_MAX } from '../../src/api/contract/phone.js';
import { phone } from '../../src/api/phone.js';
import { providers } from '../../src/api/providers.js';
import { drafts } from '../../src/drafts/drafts.js';
import { agentEditorMachine } from '../../src/machines/agentEditor.machine.js';
import { AGENT_PICK_LIMIT, assignAgentMachine } from '../../src/machines/assignAgent.machine.js';
import { authDialogMachine } from '../../src/machines/authDialog.machine.js';
import { batchCallMachine } from '../../src/machines/batchCall.machine.js';
import { forgotPasswordMachine } from '../../src/machines/forgotPassword.machine.js';
import { providerConnectionMachine } from '../../src/machines/providerConnection.machine.js';

// biome-ignore lint/suspicious/noExplicitAny: the actors of several machines, each with its own types
const run = (logic: unknown, input: unknown): Promise<any> => toPromise(createActor(logic as AnyActorLogic, { input }).start());
// biome-ignore lint/suspicious/noExplicitAny: spying on typed API objects with loose answers
const spy = (obj: any, name: string, answer: unknown) => vi.spyOn(obj, name).mockResolvedValue(answer as never);
const withSignal = (extra: Record<string, unknown> = {}) => ({ notify: false, signal: expect.any(AbortSignal), ...extra });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('authDialog and forgotPassword call the account API without its toast', () => {
  it('login, register, forgot password', async () => {
    const login = spy(account, 'login', { success: true });
    expect(await run(authDialogMachine.implementations.actors.login, { email: 'a@b.co', password: 'secret1' })).toEqual({
      success: true,
    });
    expect(login).toHaveBeenCalledWith({ email: 'a@b.co', password: 'secret1' }, withSignal());
    const register = spy(account, 'register', { success: false });
    const form = { name: 'Ava', email: 'a@b.co', password: 'secret1' };
    expect(await run(authDialogMachine.implementations.actors.register, form)).toEqual({ success: false });
    expect(register).toHaveBeenCalledWith(form, withSignal());
    const forgot = spy(account, 'forgotPassword', { success: true, msg: 'sent' });
    expect(await run(forgotPasswordMachine.implementations.actors.sendResetLink, { email: 'a@b.co' })).toEqual({
      success: true,
      msg: 'sent',
    });
    expect(forgot).toHaveBeenCalledWith({ email: 'a@b.co' }, withSignal());
  });
});

describe('agentEditor', () => {
  const actors = agentEditorMachine.implementations.actors;
  it('loads the agent by id and reads its draft', async () => {
    const get = spy(agents, 'get', { data: { agent: { _id: 'a1' } } });
    expect(await run(actors.loadAgent, { id: 'a1' })).toEqual({ _id: 'a1' });
    expect(get).toHaveBeenCalledWith('a1', { notify: false });
    const read = spy(drafts, 'get', { id: 'a1' });
    expect(await run(actors.readDraft, { id: 'a1' })).toEqual({ id: 'a1' });
    expect(read).toHaveBeenCalledWith('a1');
  });

  it('updates with the version, creates without an id, both with the Idempotency-Key', async () => {
    const form = (await import('../../src/api/contract/agent/editor-form.js')).AGENT_EDITOR_FORM_DEFAULTS;
    const payload = (await import('../../src/api/contract/agent/editor-form.js')).editorFormToSavePayload(form);
    const update = spy(agents, 'update', { data: { agent: { _id: 'a1', version: 4 } } });
    const create = spy(agents, 'create', { data: { agent: { _id: 'a2', version: 1 } } });
    expect(await run(actors.saveAgent, { agentId: 'a1', version: 3, form, idempotencyKey: 'k1' })).toEqual({
      _id: 'a1',
      version: 4,
    });
    expect(update).toHaveBeenCalledWith('a1', { ...payload, version: 3 }, { notify: false, idempotencyKey: 'k1' });
    expect(await run(actors.saveAgent, { agentId: undefined, version: undefined, form, idempotencyKey: 'k2' })).toEqual({
      _id: 'a2',
      version: 1,
    });
    expect(create).toHaveBeenCalledWith(payload, { notify: false, idempotencyKey: 'k2' });
    expect(update).toHaveBeenCalledTimes(1);
  });
});

describe('assignAgent', () => {
  const actors = assignAgentMachine.implementations.actors;
  it('lists the first 20 matching agents by name, and saves only the agent ids', async () => {
    const list = spy(agents, 'list', { data: { agents: [{ _id: 'a1', agent_name: 'Ava', voice_id: 'x' }] } });
    expect(await run(actors.loadAgents, { search: 'av' })).toEqual([{ _id: 'a1', name: 'Ava' }]);
    expect(list).toHaveBeenCalledWith({ page: 1, limit: AGENT_PICK_LIMIT, search: 'av' }, withSignal());
    await run(actors.loadAgents, { search: '' });
    expect(list).toHaveBeenLastCalledWith({ page: 1, limit: 20, search: undefined }, withSignal());
    const update = spy(phone, 'update', { success: true });
    const body = { inbound_agent_id: 'a1', outbound_agent_id: null };
    expect(await run(actors.saveAssignment, { id: 'n1', body })).toEqual({ success: true });
    expect(update).toHaveBeenCalledWith('n1', body, withSignal());
  });
});

describe('providerConnection', () => {
  const actors = providerConnectionMachine.implementations.actors;
  it('reads the fields, connects or updates with the key, disconnects', async () => {
    const fields = spy(providers, 'fields', { keys: [] });
    expect(await run(actors.loadFields, { name: 'twilio' })).toEqual({ keys: [] });
    expect(fields).toHaveBeenCalledWith('twilio', withSignal());
    const connect = spy(providers, 'connect', { success: true, n: 1 });
    const update = spy(providers, 'update', { success: true, n: 2 });
    const keys = [{ name: 'Auth Token', value: 't' }];
    expect(await run(actors.saveConnection, { name: 'twilio', connectionId: null, keys, idempotencyKey: 'k' })).toEqual({
      success: true,
      n: 1,
    });
    expect(connect).toHaveBeenCalledWith({ name: 'twilio', keys }, { notify: false, idempotencyKey: 'k' });
    expect(await run(actors.saveConnection, { name: 'twilio', connectionId: 'c1', keys, idempotencyKey: 'k2' })).toEqual({
      success: true,
      n: 2,
    });
    expect(update).toHaveBeenCalledWith('c1', { keys }, { notify: false, idempotencyKey: 'k2' });
    expect(connect).toHaveBeenCalledTimes(1);
    const disconnect = spy(providers, 'disconnect', { success: true });
    expect(await run(actors.disconnect, { name: 'twilio' })).toEqual({ success: true });
    expect(disconnect).toHaveBeenCalledWith('twilio', { notify: false });
  });
});

describe('batchCall', () => {
  const actors = batchCallMachine.implementations.actors;
  it('loads the assigned numbers and the concurrency limit', async () => {
    const assigned = spy(phone, 'assigned', {
      data: { numbers: [{ _id: 'n1', phone: '+1415', provider: 'twilio', nickname: 'x' }], total: 7 },
    });
    const limits = spy(billing, 'limits', { limits: { concurrencyLimit: 9 } });
    expect(await run(actors.loadOptions, undefined)).toEqual({
      numbers: [{ _id: 'n1', phone: '+1415', provider: 'twilio' }],
      numbersTotal: 7,
      concurrencyLimit: 9,
    });
    expect(assigned).toHaveBeenCalledWith({ page: 0, limit: PHONE_LIST_LIMIT_MAX }, withSignal());
    expect(limits).toHaveBeenCalledWith(withSignal());
  });

  it('creates, uploads the recipients, then sends, schedules or just reads the draft', async () => {
    const create = spy(batches, 'create', { batch: { _id: 'b1' } });
    const upload = spy(batches, 'upload', {});
    const send = spy(batches, 'send', { batch: { _id: 'b1', status: 'sending' } });
    const schedule = spy(batches, 'schedule', { batch: { _id: 'b1', status: 'scheduled' } });
    const get = spy(batches, 'get', { batch: { _id: 'b1', status: 'draft' } });
    const file = new Blob(['phone_number\n+14155550100']);
    const body = { name: 'B', fromNumber: '+1415', sendMode: 'now', status: 'draft' };
    expect(await run(actors.persistBatch, { idempotencyKey: 'k', body, file, next: 'now' })).toEqual({
      _id: 'b1',
      status: 'sending',
    });
    expect(create).toHaveBeenCalledWith(body, 'k', withSignal());
    expect(upload).toHaveBeenCalledWith('b1', file, withSignal());
    expect(send).toHaveBeenCalledWith('b1', withSignal());
    const at = '2099-01-01T09:00:00.000Z';
    expect(
      await run(actors.persistBatch, {
        idempotencyKey: 'k2',
        body: { ...body, sendMode: 'scheduled', scheduledAt: at },
        file: null,
        next: 'scheduled',
      }),
    ).toEqual({ _id: 'b1', status: 'scheduled' });
    expect(schedule).toHaveBeenCalledWith('b1', at, withSignal());
    expect(upload).toHaveBeenCalledTimes(1);
    expect(await run(actors.persistBatch, { idempotencyKey: 'k3', body, file: null, next: 'draft' })).toEqual({
      _id: 'b1',
      status: 'draft',
    });
    expect(get).toHaveBeenCalledWith('b1', withSignal());
    // scheduled without a time: nothing to schedule, the draft is read back
    expect(await run(actors.persistBatch, { idempotencyKey: 'k4', body, file: null, next: 'scheduled' })).toEqual({
      _id: 'b1',
      status: 'draft',
    });
    expect(send).toHaveBeenCalledTimes(1);
    expect(schedule).toHaveBeenCalledTimes(1);
  });
});
