import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AnyMachineSnapshot, createActor, fromPromise } from 'xstate';
import { agentDialogFields } from '../../src/api/contract/agent/dialog.js';
import {
  AGENT_EDITOR_FORM_DEFAULTS,
  type AgentEditorForm,
  editorFormToSavePayload,
  newFlow,
} from '../../src/api/contract/agent/editor-form.js';
import { FLOW_MESSAGES } from '../../src/api/contract/agent/flow.js';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { ApiError } from '../../src/api/errors.js';
import type { ToastMessage } from '../../src/api/toast.js';
import type { AgentDraft } from '../../src/drafts/drafts.js';
import { removeEdge } from '../../src/flow/editing.js';
import {
  type AgentEditorContext,
  agentEditorMachine,
  DRAFT_DELAY_MS,
  type SaveInput,
  sameForm,
  validateEditorForm,
} from '../../src/machines/agentEditor.machine.js';
import { describeModel, stableStringify } from './harness.js';

/** A stored agent as GET /agent/{id} answers it. */
function agentFixture(form: AgentEditorForm, over: Partial<Agent> = {}): Agent {
  const payload = editorFormToSavePayload(form);
  const doc = {
    name: payload.name,
    prompt: payload.prompt,
    message: payload.message,
    settings: payload.settings,
    editor: payload.editor,
  };
  return {
    _id: 'a1',
    ...doc,
    ...agentDialogFields(doc),
    company: 'c1',
    account: 'u1',
    version: 3,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  } as Agent;
}

const SAVED_FORM: AgentEditorForm = {
  ...structuredClone(AGENT_EDITOR_FORM_DEFAULTS),
  agentName: 'Front desk',
  voice: 'Rachel',
  voiceId: '21m00Tcm4TlvDq8ikWAM',
  promptText: 'You are the receptionist.',
};
const AGENT = agentFixture(SAVED_FORM);
const DRAFT: AgentDraft = { id: 'a1', form: { ...SAVED_FORM, promptText: 'Drafted prompt' }, baseVersion: 3, savedAt: 1 };

const otherName = (snap: AnyMachineSnapshot) => {
  const c = snap.context as AgentEditorContext;
  return c.form.agentName === 'Ava' ? c.baseline.agentName : 'Ava';
};

/** The new flow with its end node cut off the start one (one problem), or back. */
const otherFlow = (snap: AnyMachineSnapshot) => {
  const flow = (snap.context as AgentEditorContext).form.flow ?? newFlow();
  return flow.nodes[0]?.edges.length ? removeEdge(flow, 'e1') : newFlow();
};

const quiet = {
  actions: { notify: () => {}, goToList: () => {}, focusField: () => {}, writeDraft: () => {}, clearDraft: () => {} },
};

// two inputs and five effects make several hundred paths: replaying all of them takes a few seconds
vi.setConfig({ testTimeout: 60_000 });

describeModel('agentEditor', agentEditorMachine, {
  inputs: [{}, { agentId: 'a1' }, { kind: 'conversation_flow' }],
  implementations: quiet,
  // the form is abstracted to what the chart branches on
  serializeState: (s: AnyMachineSnapshot) => {
    const c = s.context as AgentEditorContext;
    return stableStringify({
      value: s.value,
      name: c.form.agentName,
      voice: c.form.voiceId,
      flow: c.form.flow ? c.form.flow.nodes[0]?.edges.length : null,
      dirty: !sameForm(c.form, c.baseline),
      saving: c.saving ? !sameForm(c.form, c.saving) : null,
      errors: Object.keys(c.errors).sort(),
      draft: c.draft !== undefined,
      version: c.agent?.version ?? null,
      loadError: c.loadError !== undefined,
    });
  },
  events: {
    // one name besides the saved one keeps the state space small: edit to 'Ava' and back
    'field.change': (snap: AnyMachineSnapshot) => [
      { type: 'field.change', field: 'agentName', value: otherName(snap) },
      ...((snap.context as AgentEditorContext).form.kind === 'conversation_flow'
        ? [{ type: 'field.change', field: 'flow', value: otherFlow(snap) }]
        : []),
    ],
    'name.commit': (snap: AnyMachineSnapshot) => [
      { type: 'name.commit', value: '   ' },
      { type: 'name.commit', value: ` ${otherName(snap)} ` },
    ],
    'voice.choose': [{ type: 'voice.choose', voiceId: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel' }],
    'xstate.done.actor.loadAgent': [{ type: 'xstate.done.actor.loadAgent', output: AGENT }],
    'xstate.error.actor.loadAgent': [
      {
        type: 'xstate.error.actor.loadAgent',
        error: new ApiError({ kind: 'http', status: 404, serverMessage: 'Agent not found' }),
      },
      { type: 'xstate.error.actor.loadAgent', error: new ApiError({ kind: 'network' }) },
    ],
    'xstate.done.actor.readDraft': [
      { type: 'xstate.done.actor.readDraft', output: undefined },
      { type: 'xstate.done.actor.readDraft', output: DRAFT },
    ],
    'xstate.done.actor.saveAgent': [{ type: 'xstate.done.actor.saveAgent', output: { ...AGENT, version: 4 } }],
    'xstate.error.actor.saveAgent': [
      { type: 'xstate.error.actor.saveAgent', error: new ApiError({ kind: 'http', status: 409, serverMessage: 'conflict' }) },
      { type: 'xstate.error.actor.saveAgent', error: new ApiError({ kind: 'http', status: 500 }) },
    ],
  },
});

// ---------------------------------------------------------------------------------------------
// Behaviour with controllable effects

interface Harness {
  actor: ReturnType<typeof createActor<typeof agentEditorMachine>>;
  toasts: ToastMessage[];
  effects: string[];
  saves: SaveInput[];
  drafts: Map<string, AgentDraft>;
  focus: (string | undefined)[];
}

function editor(opts: {
  agentId?: string;
  kind?: 'conversation_flow';
  load?: () => Promise<Agent>;
  save?: (input: SaveInput) => Promise<Agent>;
  drafts?: Map<string, AgentDraft>;
}): Harness {
  const h = { toasts: [], effects: [], saves: [], drafts: opts.drafts ?? new Map(), focus: [] } as unknown as Harness;
  const machine = agentEditorMachine.provide({
    actors: {
      loadAgent: fromPromise(() => (opts.load ?? (async () => AGENT))()),
      readDraft: fromPromise<AgentDraft | undefined, { id: string }>(async ({ input }) => h.drafts.get(input.id)),
      saveAgent: fromPromise<Agent, SaveInput>(({ input }) => {
        h.saves.push(input);
        return (opts.save ?? (async (i: SaveInput) => agentFixture(i.form, { version: (i.version ?? 0) + 1 })))(input);
      }),
    },
    actions: {
      notify: (_, t) => h.toasts.push(t),
      goToList: () => h.effects.push('goToList'),
      focusField: (_, p) => h.focus.push(p.field),
      writeDraft: ({ context }) => {
        h.effects.push('writeDraft');
        h.drafts.set(context.agentId ?? 'new', {
          id: context.agentId ?? 'new',
          form: context.form,
          baseVersion: null,
          savedAt: 0,
        });
      },
      clearDraft: ({ context }) => {
        h.effects.push('clearDraft');
        h.drafts.delete(context.agentId ?? 'new');
      },
    },
  });
  h.actor = createActor(machine, { input: { agentId: opts.agentId, kind: opts.kind } }).start();
  return h;
}

const settle = () => vi.advanceTimersByTimeAsync(0);

describe('agentEditor behaviour', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a new conversation-flow agent is saved with its kind and flow only once the flow has no problem', async () => {
    vi.useFakeTimers();
    const h = editor({ kind: 'conversation_flow' });
    await settle();
    const form = h.actor.getSnapshot().context.form;
    expect(form.kind).toBe('conversation_flow');
    expect(form.flow).toEqual(newFlow());
    h.actor.send({ type: 'voice.choose', voiceId: 'v1', name: 'Rachel' });
    h.actor.send({ type: 'field.change', field: 'flow', value: removeEdge(newFlow(), 'e1') });
    h.actor.send({ type: 'agent.save' });
    expect(h.actor.getSnapshot().context.errors).toEqual({ flow: FLOW_MESSAGES.noWayOut });
    expect(h.focus).toEqual(['flow']);
    expect(h.saves).toEqual([]);
    h.actor.send({ type: 'field.change', field: 'flow', value: newFlow() });
    h.actor.send({ type: 'agent.save' });
    expect(h.saves).toHaveLength(1);
    const payload = editorFormToSavePayload(h.saves[0]!.form);
    expect(payload.kind).toBe('conversation_flow');
    expect(payload.flow).toEqual(newFlow());
    expect(payload.editor).not.toHaveProperty('kind');
  });

  it("validates with the contract's messages, focuses the first invalid field and sends nothing", async () => {
    vi.useFakeTimers();
    const h = editor({});
    await settle();
    expect(h.actor.getSnapshot().matches({ editing: 'pristine' })).toBe(true);
    expect(h.actor.getSnapshot().context.form).toEqual(AGENT_EDITOR_FORM_DEFAULTS);
    h.actor.send({ type: 'agent.save' });
    expect(h.actor.getSnapshot().context.errors).toEqual({ voice: 'Voice is required' });
    expect(h.focus).toEqual(['voice']);
    h.actor.send({ type: 'field.change', field: 'agentName', value: '  ' });
    h.actor.send({ type: 'field.change', field: 'llmModel', value: '' });
    h.actor.send({ type: 'field.change', field: 'language', value: '' });
    h.actor.send({ type: 'field.change', field: 'inboundCallWebhook', value: 'not a url' });
    h.actor.send({ type: 'agent.save' });
    expect(h.actor.getSnapshot().context.errors).toEqual({
      agentName: 'Agent name is required',
      llmModel: 'LLM model is required',
      language: 'Language is required',
      voice: 'Voice is required',
      inboundCallWebhook: 'Must be a valid URL or empty',
    });
    expect(h.focus.at(-1)).toBe('agentName');
    // an edit clears that field's message only
    h.actor.send({ type: 'voice.choose', voiceId: 'v1', name: 'Rachel' });
    expect(Object.keys(h.actor.getSnapshot().context.errors)).not.toContain('voice');
    expect(h.saves).toEqual([]);
    expect(h.actor.getSnapshot().hasTag('unsaved')).toBe(true);
  });

  it('creates: POST with the form, clears the draft, toasts once and goes back to the list', async () => {
    vi.useFakeTimers();
    const h = editor({});
    await settle();
    h.actor.send({ type: 'voice.choose', voiceId: 'v1', name: 'Rachel' });
    h.actor.send({ type: 'name.commit', value: '   ' });
    expect(h.actor.getSnapshot().context.form.agentName).toBe('New Agent');
    h.actor.send({ type: 'name.commit', value: ' Night line ' });
    expect(h.actor.getSnapshot().context.form.agentName).toBe('Night line');
    h.actor.send({ type: 'agent.save' });
    expect(h.actor.getSnapshot().hasTag('saving')).toBe(true);
    await settle();
    expect(h.saves).toHaveLength(1);
    expect(h.saves[0]).toMatchObject({ agentId: undefined, version: undefined });
    expect(h.saves[0]?.form).toMatchObject({ agentName: 'Night line', voice: 'Rachel', voiceId: 'v1' });
    expect(h.actor.getSnapshot().matches('created')).toBe(true);
    expect(h.toasts).toEqual([{ title: 'New agent created successfully!' }]);
    expect(h.effects.filter((e) => e !== 'writeDraft')).toEqual(['clearDraft', 'goToList']);
    expect(h.drafts.size).toBe(0);
  });

  it('a failed create retried as is reuses its Idempotency-Key; an edited form is a new create with a new key', async () => {
    vi.useFakeTimers();
    let fail = true;
    const h = editor({
      save: async (i) => {
        if (fail) throw new ApiError({ kind: 'network' });
        return agentFixture(i.form, { version: 1 });
      },
    });
    await settle();
    h.actor.send({ type: 'voice.choose', voiceId: 'v1', name: 'Rachel' });
    h.actor.send({ type: 'agent.save' });
    await settle();
    h.actor.send({ type: 'agent.save' });
    await settle();
    expect(h.actor.getSnapshot().matches({ editing: 'failed' })).toBe(true);
    h.actor.send({ type: 'name.commit', value: 'Renamed' });
    fail = false;
    h.actor.send({ type: 'agent.save' });
    await settle();
    expect(h.actor.getSnapshot().matches('created')).toBe(true);
    const keys = h.saves.map((x) => x.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('updates with the loaded version; typing during the save stays dirty', async () => {
    vi.useFakeTimers();
    let release: (a: Agent) => void = () => {};
    const h = editor({ agentId: 'a1', save: () => new Promise((resolve) => (release = resolve)) });
    await settle();
    expect(h.actor.getSnapshot().context.form).toEqual(SAVED_FORM);
    h.actor.send({ type: 'field.change', field: 'promptText', value: 'New prompt' });
    h.actor.send({ type: 'agent.save' });
    h.actor.send({ type: 'field.change', field: 'promptText', value: 'New prompt, more' });
    expect(h.saves[0]).toMatchObject({ agentId: 'a1', version: 3 });
    expect(h.saves[0]?.form.promptText).toBe('New prompt');
    release(agentFixture({ ...SAVED_FORM, promptText: 'New prompt' }, { version: 4 }));
    await settle();
    expect(h.actor.getSnapshot().matches({ editing: 'dirty' })).toBe(true);
    expect(h.actor.getSnapshot().context.form.promptText).toBe('New prompt, more');
    expect(h.actor.getSnapshot().context.agent?.version).toBe(4);
    expect(h.toasts).toEqual([{ title: 'Agent updated successfully!' }]);
    // saving again sends the new version and ends saved
    h.actor.send({ type: 'agent.save' });
    expect(h.saves[1]).toMatchObject({ agentId: 'a1', version: 4 });
    release(agentFixture(h.saves[1]!.form, { version: 5 }));
    await settle();
    expect(h.actor.getSnapshot().matches({ editing: 'saved' })).toBe(true);
    expect(h.actor.getSnapshot().hasTag('unsaved')).toBe(false);
    expect(h.drafts.has('a1')).toBe(false);
  });

  it('a failed save keeps every edit and toasts the server msg; a 409 offers to reload and keeps the draft', async () => {
    vi.useFakeTimers();
    const answers: (() => Promise<Agent>)[] = [
      () =>
        Promise.reject(
          new ApiError({ kind: 'http', status: 400, serverMessage: 'settings.tts.options.voice_id: Voice is required' }),
        ),
      () => Promise.reject(new ApiError({ kind: 'http', status: 500 })),
      () => Promise.reject(new ApiError({ kind: 'network' })),
      () => Promise.reject(new ApiError({ kind: 'http', status: 409, serverMessage: 'changed' })),
    ];
    const h = editor({ agentId: 'a1', save: () => (answers.shift() as () => Promise<Agent>)() });
    await settle();
    h.actor.send({ type: 'field.change', field: 'welcomeMessage', value: 'Hello!' });
    for (let i = 0; i < 3; i++) {
      h.actor.send({ type: 'agent.save' });
      await settle();
      expect(h.actor.getSnapshot().matches({ editing: 'failed' })).toBe(true);
      expect(h.actor.getSnapshot().context.form.welcomeMessage).toBe('Hello!');
    }
    expect(h.toasts).toEqual([
      { title: 'Error', description: 'settings.tts.options.voice_id: Voice is required', variant: 'destructive' },
      { title: 'Error', description: 'Failed to update agent', variant: 'destructive' },
      { title: 'Error', description: 'Could not reach the server. Check your connection and try again.', variant: 'destructive' },
    ]);
    // retries of the same save are one action: one Idempotency-Key (a lost answer is replayed, never repeated)
    expect(new Set(h.saves.map((x) => x.idempotencyKey)).size).toBe(1);
    h.actor.send({ type: 'agent.save' });
    await settle();
    expect(h.actor.getSnapshot().hasTag('conflict')).toBe(true);
    expect(h.toasts.at(-1)?.title).toBe('Agent changed elsewhere');
    // the edits are in the draft: reloading offers them back over the newer version
    h.actor.send({ type: 'agent.reload' });
    await settle();
    expect(h.actor.getSnapshot().matches('draftOffered')).toBe(true);
    h.actor.send({ type: 'draft.restore' });
    expect(h.actor.getSnapshot().context.form.welcomeMessage).toBe('Hello!');
    expect(h.actor.getSnapshot().matches({ editing: 'dirty' })).toBe(true);
  });

  it('writes the draft 500 ms after the last edit, offers it on the next visit, and discarding clears it', async () => {
    vi.useFakeTimers();
    const store = new Map<string, AgentDraft>();
    const h = editor({ agentId: 'a1', drafts: store });
    await settle();
    h.actor.send({ type: 'field.change', field: 'promptText', value: 'a' });
    await vi.advanceTimersByTimeAsync(DRAFT_DELAY_MS - 100);
    h.actor.send({ type: 'field.change', field: 'promptText', value: 'ab' });
    await vi.advanceTimersByTimeAsync(DRAFT_DELAY_MS - 100);
    expect(store.size).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(store.get('a1')?.form.promptText).toBe('ab');
    h.actor.stop();

    // "reload": a new editor finds the draft
    const again = editor({ agentId: 'a1', drafts: store });
    await settle();
    expect(again.actor.getSnapshot().matches('draftOffered')).toBe(true);
    expect(again.actor.getSnapshot().context.form.promptText).toBe(SAVED_FORM.promptText);
    again.actor.send({ type: 'draft.restore' });
    expect(again.actor.getSnapshot().context.form.promptText).toBe('ab');
    // editing back to the saved text leaves nothing unsaved and drops the draft
    again.actor.send({ type: 'field.change', field: 'promptText', value: SAVED_FORM.promptText });
    expect(again.actor.getSnapshot().matches({ editing: 'pristine' })).toBe(true);
    expect(store.size).toBe(0);

    store.set('a1', DRAFT);
    const third = editor({ agentId: 'a1', drafts: store });
    await settle();
    third.actor.send({ type: 'draft.discard' });
    expect(third.actor.getSnapshot().matches({ editing: 'pristine' })).toBe(true);
    expect(store.size).toBe(0);
    // a draft equal to the saved agent is not offered
    store.set('a1', { ...DRAFT, form: SAVED_FORM });
    const fourth = editor({ agentId: 'a1', drafts: store });
    await settle();
    expect(fourth.actor.getSnapshot().matches({ editing: 'pristine' })).toBe(true);
  });

  it("leaving with 'edits.discard' drops the edits and the draft", async () => {
    vi.useFakeTimers();
    const h = editor({ agentId: 'a1' });
    await settle();
    h.actor.send({ type: 'field.change', field: 'agentName', value: 'Changed' });
    await vi.advanceTimersByTimeAsync(DRAFT_DELAY_MS);
    expect(h.drafts.has('a1')).toBe(true);
    h.actor.send({ type: 'edits.discard' });
    expect(h.actor.getSnapshot().context.form).toEqual(SAVED_FORM);
    expect(h.drafts.has('a1')).toBe(false);
    expect(h.actor.getSnapshot().hasTag('unsaved')).toBe(false);
  });

  it('an unknown agent is not found; another failure can be retried', async () => {
    vi.useFakeTimers();
    const missing = editor({ agentId: 'zz', load: () => Promise.reject(new ApiError({ kind: 'http', status: 404 })) });
    await settle();
    expect(missing.actor.getSnapshot().matches('notFound')).toBe(true);
    let fail = true;
    const flaky = editor({
      agentId: 'a1',
      load: () => (fail ? Promise.reject(new ApiError({ kind: 'timeout' })) : Promise.resolve(AGENT)),
    });
    await settle();
    expect(flaky.actor.getSnapshot().matches('loadFailed')).toBe(true);
    expect(flaky.actor.getSnapshot().context.loadError).toBe('The server took too long to answer. Please try again.');
    fail = false;
    flaky.actor.send({ type: 'agent.retry' });
    await settle();
    expect(flaky.actor.getSnapshot().matches({ editing: 'pristine' })).toBe(true);
  });

  it('validateEditorForm reports nested bounds', () => {
    expect(
      validateEditorForm({
        ...SAVED_FORM,
        llmSettings: { temperature: 1.5, structuredOutput: false, highPriority: false },
        voiceSettings: { ...SAVED_FORM.voiceSettings, speed: 0.2 },
      }),
    ).toEqual({ 'llmSettings.temperature': 'Must be between 0 and 1', 'voiceSettings.speed': 'Must be between 0.5 and 2' });
  });
});
