import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import { agents } from '../api/agents';
import {
  AGENT_EDITOR_FORM_DEFAULTS,
  type AgentEditorForm,
  AgentEditorFormSchema,
  agentToEditorForm,
  editorFlowProblems,
  editorFormToSavePayload,
  newFlowAgentForm,
} from '../api/contract/agent/editor-form';
import type { AgentKind } from '../api/contract/agent/flow';
import { AGENT_MESSAGES } from '../api/contract/agent/messages';
import type { Agent } from '../api/contract/agent/responses';
import { type ActionKey, actionKey, newIdempotencyKey } from '../api/contract/idempotency';
import { isApiError } from '../api/errors';
import { type AgentDraft, draftIdOf as agentDraftIdOf, drafts } from '../drafts/drafts';
import { notify, type ToastMessage } from './notify';

export type EditorField = keyof AgentEditorForm;
/** Field -> first validation message (nested fields as `llmSettings.temperature`). */
export type EditorErrors = Partial<Record<string, string>>;

/**
 * Toasts of the editor. One consistent pair for create and update: 'New agent created
 * successfully!' and 'Agent updated successfully!' (the spec's other create title, 'Agent created
 * successfully!' with 'The agent has been updated successfully.', is not used). A failed save shows the
 * server's msg, else the specification's 'Failed to update agent' (or '... create ...').
 */
export const EDITOR_TOASTS = {
  created: { title: AGENT_MESSAGES.created },
  updated: { title: AGENT_MESSAGES.updated },
  saveFailed: (isNew: boolean, error: unknown): ToastMessage => ({
    title: 'Error',
    description: isApiError(error)
      ? (error.serverMessage ?? (error.kind === 'http' ? failedSave(isNew) : error.message))
      : failedSave(isNew),
    variant: 'destructive',
  }),
  conflict: { title: 'Agent changed elsewhere', description: AGENT_MESSAGES.conflict, variant: 'destructive' },
} as const;
const failedSave = (isNew: boolean) => (isNew ? 'Failed to create agent' : 'Failed to update agent');

/** A draft is written this long after the last edit (the issue asks for within 1 s). */
export const DRAFT_DELAY_MS = 500;

export interface AgentEditorInput {
  /** undefined: a new agent (/dashboard/agents/single-prompt or /dashboard/agents/conversation-flow) */
  agentId?: string;
  /** a new agent's kind (default single_prompt); a loaded agent's kind comes from GET /agent/{id} */
  kind?: AgentKind;
}

/** The draft of a new conversation-flow agent is kept apart from a new single-prompt agent's. */
export const NEW_FLOW_DRAFT_ID = 'new-conversation-flow';
/** The IndexedDB key of the editor's draft. */
export const draftIdOf = (agentId: string | undefined, kind?: AgentKind) =>
  agentId === undefined && kind === 'conversation_flow' ? NEW_FLOW_DRAFT_ID : agentDraftIdOf(agentId);
const draftIdOfContext = (context: AgentEditorContext) => draftIdOf(context.agentId, context.kind);

export interface AgentEditorContext {
  agentId: string | undefined;
  /** the kind the editor was opened for (a new agent's); the form's `kind` is what is saved */
  kind: AgentKind | undefined;
  /** the agent as the server last answered it (id, version); undefined until a new agent is created */
  agent: Agent | undefined;
  form: AgentEditorForm;
  /** what the server holds (or the defaults of a new agent): the form is dirty when it differs */
  baseline: AgentEditorForm;
  /** the form being saved */
  saving: AgentEditorForm | undefined;
  errors: EditorErrors;
  /** a draft found when the editor opened, offered for restore */
  draft: AgentDraft | undefined;
  loadError: string | undefined;
  /** the Idempotency-Key of the save being attempted: a retry of the same save sends it again */
  attempt: ActionKey | undefined;
}

export type AgentEditorEvent =
  | { [K in EditorField]: { type: 'field.change'; field: K; value: AgentEditorForm[K] } }[EditorField]
  | { type: 'name.commit'; value: string }
  | { type: 'voice.choose'; voiceId: string; name: string }
  | { type: 'agent.save' }
  | { type: 'agent.retry' }
  | { type: 'agent.reload' }
  | { type: 'draft.restore' }
  | { type: 'draft.discard' }
  | { type: 'edits.discard' }
  | { type: 'conflict.dismiss' };

export interface SaveInput {
  /** undefined: create */
  agentId: string | undefined;
  version: number | undefined;
  form: AgentEditorForm;
  /** the same for every attempt of one save (a lost answer never makes a second agent) */
  idempotencyKey: string;
}

/** What one save sends: a retry of the same save (same agent, version and form) reuses its Idempotency-Key. */
const saveRequestOf = (context: AgentEditorContext) => ({
  agentId: context.agent?._id,
  version: context.agent?.version,
  form: context.form,
});

/** Same content (the prompt, the likeliest difference, is compared first). */
export const sameForm = (a: AgentEditorForm, b: AgentEditorForm) =>
  a === b || (a.promptText === b.promptText && JSON.stringify(a) === JSON.stringify(b));

/** The change an edit event makes to the form. */
function patchOf(event: AgentEditorEvent): Partial<AgentEditorForm> | undefined {
  if (event.type === 'field.change') return { [event.field]: event.value };
  // the voice's id and display name change together (the specification's 'Voice choice')
  if (event.type === 'voice.choose') return { voiceId: event.voiceId, voice: event.name };
  if (event.type === 'name.commit') return { agentName: event.value.trim() };
  return undefined;
}

/**
 * The first message per field of the form's validation (section 5 messages); a flow agent's graph problems
 * (validateFlow) come under `flow`, the first one as the message.
 */
export function validateEditorForm(form: AgentEditorForm): EditorErrors {
  const result = v.safeParse(AgentEditorFormSchema, form);
  const errors: EditorErrors = {};
  for (const issue of result.issues ?? []) {
    const key = issue.path?.map((p) => String(p.key)).join('.') ?? 'form';
    // the voice picker sets `voice` and `voiceId` together: one message, under `voice`
    const field = key === 'voiceId' ? 'voice' : key;
    errors[field] ??= issue.message;
  }
  // the graph is checked once the flow's own fields are right
  if (!Object.keys(errors).some((k) => k === 'flow' || k.startsWith('flow.'))) {
    const problems = editorFlowProblems(result.success ? result.output : form);
    if (problems.length > 0) errors.flow = problems[0]!.message;
  }
  return errors;
}

/** The order fields appear on the page: the first invalid one gets the focus. */
export const FIELD_ORDER = ['agentName', 'llmModel', 'language', 'voice', 'welcomeMessage', 'promptText', 'flow'];
export const firstErrorField = (errors: EditorErrors): string | undefined => {
  const keys = Object.keys(errors);
  return FIELD_ORDER.find((f) => keys.includes(f)) ?? keys[0];
};

const defaults = (kind?: AgentKind): AgentEditorForm =>
  kind === 'conversation_flow' ? newFlowAgentForm() : structuredClone(AGENT_EDITOR_FORM_DEFAULTS);

/** An edit (field, voice or name): back to what is saved -> pristine, else dirty (restarting the draft timer). */
const edit = [
  {
    guard: 'changeIsClean',
    target: '.pristine',
    actions: ['applyChange', 'clearDraft'],
    description: 'An edit that brings the form back to what is saved: nothing unsaved any more.',
  },
  { target: '.dirty', reenter: true, actions: 'applyChange', description: 'Every edit restarts the draft timer.' },
] as const;

/**
 * The agent editor (single prompt or conversation flow): loads the agent (or starts a new one), offers an unsaved
 * draft, tracks edits (pristine / dirty), keeps a draft in IndexedDB while dirty, validates with spec
 * its messages, saves (create or update with the loaded version) and reports the outcome.
 * Effects are named: `loadAgent`, `readDraft`, `saveAgent` (actors); `writeDraft`, `clearDraft`,
 * `notify`, `goToList`, `focusField` (actions; the view provides navigation and focus).
 */
export const agentEditorMachine = setup({
  types: {
    context: {} as AgentEditorContext,
    events: {} as AgentEditorEvent,
    input: {} as AgentEditorInput,
    tags: {} as 'loading' | 'unsaved' | 'saving' | 'conflict' | 'saved' | 'failed',
  },
  actors: {
    // no abort signal: the query cache shares one request between callers (React's strict mode starts actors twice)
    loadAgent: fromPromise<Agent, { id: string }>(
      async ({ input }) => (await agents.get(input.id, { notify: false })).data.agent,
    ),
    readDraft: fromPromise<AgentDraft | undefined, { id: string }>(({ input }) => drafts.get(input.id)),
    saveAgent: fromPromise<Agent, SaveInput>(async ({ input }) => {
      const payload = editorFormToSavePayload(input.form);
      const options = { notify: false, idempotencyKey: input.idempotencyKey };
      const res = input.agentId
        ? await agents.update(input.agentId, { ...payload, version: input.version }, options)
        : await agents.create(payload, options);
      return res.data.agent;
    }),
  },
  actions: {
    writeDraft: ({ context }) => {
      void drafts.put({
        id: draftIdOfContext(context),
        form: context.form,
        baseVersion: context.agent?.version ?? null,
        savedAt: Date.now(),
      });
    },
    clearDraft: ({ context }) => {
      void drafts.remove(draftIdOfContext(context));
    },
    notify,
    goToList: () => {},
    focusField: (_, _params: { field: string | undefined }) => {},
    applyChange: assign(({ context, event }) => {
      const patch = patchOf(event);
      if (!patch) return {};
      const errors = { ...context.errors };
      for (const field of Object.keys(patch)) {
        for (const key of Object.keys(errors)) if (key === field || key.startsWith(`${field}.`)) delete errors[key];
        if (field === 'voiceId') delete errors.voice;
      }
      return { form: { ...context.form, ...patch }, errors };
    }),
    /** the server's answer becomes the agent; what was sent becomes what is saved */
    acceptSaved: assign(({ context, event }) =>
      'output' in event
        ? { agent: event.output as Agent, baseline: context.saving ?? context.form, saving: undefined, attempt: undefined }
        : {},
    ),
    showErrors: assign({ errors: ({ context }) => validateEditorForm(context.form) }),
    clearErrors: assign({ errors: {} }),
    resetForm: assign({ form: ({ context }) => context.baseline, errors: {} }),
    showAgent: assign((_, params: { agent: Agent }) => {
      const form = agentToEditorForm(params.agent);
      return { agent: params.agent, form, baseline: form, errors: {}, loadError: undefined };
    }),
    showLoadFailure: assign({
      loadError: (_, params: { error: unknown }) => (params.error instanceof Error ? params.error.message : String(params.error)),
    }),
    offerDraft: assign({ draft: (_, params: { draft: AgentDraft }) => params.draft }),
    restoreDraft: assign({ form: ({ context }) => context.draft?.form ?? context.form, draft: undefined }),
    forgetDraft: assign({ draft: undefined }),
    stopSaving: assign({ saving: undefined }),
    startSaving: assign({
      saving: ({ context }) => context.form,
      attempt: ({ context }) => actionKey(context.attempt, saveRequestOf(context)),
    }),
  },
  guards: {
    isNew: ({ context }) => context.agentId === undefined,
    isNotFound: ({ event }) => 'error' in event && isApiError(event.error) && event.error.status === 404,
    hasDraft: ({ context, event }) => {
      const draft = 'output' in event ? (event.output as AgentDraft | undefined) : undefined;
      // a draft of another kind of agent is never offered (its form could not be edited here)
      return (
        draft !== undefined &&
        (draft.form.kind ?? 'single_prompt') === (context.baseline.kind ?? 'single_prompt') &&
        !sameForm(draft.form, context.baseline)
      );
    },
    changeIsClean: ({ context, event }) => {
      const patch = patchOf(event);
      return patch !== undefined && sameForm({ ...context.form, ...patch }, context.baseline);
    },
    isBlankName: ({ event }) => event.type === 'name.commit' && event.value.trim() === '',
    isNotBlankName: ({ event }) => event.type === 'name.commit' && event.value.trim() !== '',
    isValid: ({ context }) => Object.keys(validateEditorForm(context.form)).length === 0,
    isDirty: ({ context }) => !sameForm(context.form, context.baseline),
    wasCreate: ({ context }) => context.agent === undefined,
    editedWhileSaving: ({ context }) => context.saving !== undefined && !sameForm(context.form, context.saving),
    isConflict: ({ event }) => 'error' in event && isApiError(event.error) && event.error.status === 409,
  },
  delays: {
    draftDelay: DRAFT_DELAY_MS,
  },
}).createMachine({
  id: 'agentEditor',
  description:
    'The agent editor at /dashboard/agents/single-prompt or /dashboard/agents/conversation-flow (new) and /dashboard/agents/{agentId}.',
  context: ({ input }) => ({
    agentId: input.agentId,
    kind: input.agentId === undefined ? input.kind : undefined,
    agent: undefined,
    form: defaults(input.kind),
    baseline: defaults(input.kind),
    saving: undefined,
    errors: {},
    draft: undefined,
    loadError: undefined,
    attempt: undefined,
  }),
  initial: 'starting',
  states: {
    starting: {
      description: 'Chooses between a new agent and loading an existing one.',
      always: [
        { guard: 'isNew', target: 'checkingDraft', description: 'A new agent starts from the editor defaults.' },
        { target: 'loading', description: 'An agent id in the URL: load it.' },
      ],
    },
    loading: {
      description: "GET /agent/{id}: 'Loading agent details...'. The agent comes from the server, never a local list.",
      tags: ['loading'],
      invoke: {
        id: 'loadAgent',
        src: 'loadAgent',
        input: ({ context }) => ({ id: context.agentId as string }),
        onDone: {
          target: 'checkingDraft',
          description: 'The form shows exactly what was saved.',
          actions: { type: 'showAgent', params: ({ event }) => ({ agent: event.output }) },
        },
        onError: [
          {
            guard: 'isNotFound',
            target: 'notFound',
            description: "An unknown or another company's agent: the same not-found state.",
          },
          {
            target: 'loadFailed',
            description: 'No answer, a server fault or an unreadable answer.',
            actions: { type: 'showLoadFailure', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    loadFailed: {
      description: 'The agent could not be loaded (network, server): the message and a Retry button.',
      tags: ['failed'],
      on: { 'agent.retry': { target: 'loading', description: 'Retry.' } },
    },
    notFound: {
      description: 'No such agent for this company: a link back to /dashboard.',
    },
    checkingDraft: {
      description: 'Looks for an unsaved draft of this agent in IndexedDB (myDatabase / myStore).',
      tags: ['loading'],
      invoke: {
        id: 'readDraft',
        src: 'readDraft',
        input: ({ context }) => ({ id: draftIdOfContext(context) }),
        onDone: [
          {
            guard: 'hasDraft',
            target: 'draftOffered',
            description: 'A draft that differs from what is saved.',
            actions: { type: 'offerDraft', params: ({ event }) => ({ draft: event.output as AgentDraft }) },
          },
          { target: 'editing', description: 'No draft (or one equal to what is saved).' },
        ],
        onError: { target: 'editing', description: 'Drafts are a safety net: an unreadable store never blocks editing.' },
      },
    },
    draftOffered: {
      description: 'A draft with unsaved edits exists (after a crash or reload): restore it or discard it.',
      on: {
        'draft.restore': {
          description: 'The draft replaces the form; it is unsaved until Save.',
          target: 'editing.dirty',
          actions: 'restoreDraft',
        },
        'draft.discard': {
          target: 'editing.pristine',
          description: 'The draft is deleted; the form shows what is saved.',
          actions: ['clearDraft', 'forgetDraft'],
        },
      },
    },
    editing: {
      description: 'The form is on screen and takes edits.',
      initial: 'pristine',
      on: {
        'field.change': edit,
        'voice.choose': edit,
        'name.commit': [{ guard: 'isBlankName', description: 'An empty or blank name is ignored.' }, ...edit],
        'agent.save': { target: 'validating', description: "The header's Save button." },
        'edits.discard': {
          target: '.pristine',
          actions: ['resetForm', 'clearDraft'],
          description: 'Leaving without saving: the edits and their draft are dropped.',
        },
      },
      states: {
        pristine: { description: 'Nothing unsaved.' },
        dirty: {
          tags: ['unsaved'],
          after: {
            draftDelay: { actions: 'writeDraft', description: 'The draft is written 500 ms after the last edit.' },
          },
        },
        failed: {
          description: 'The last save failed: a destructive toast with the server msg; every edit is kept.',
          tags: ['unsaved', 'failed'],
        },
        conflicted: {
          description: 'Someone saved a newer version (409): reload it (the draft keeps these edits) or keep editing.',
          tags: ['unsaved', 'conflict'],
          on: {
            'agent.reload': {
              target: '#agentEditor.loading',
              actions: 'writeDraft',
              description: 'Loads the newer version; the draft with these edits is offered again.',
            },
            'conflict.dismiss': { target: 'dirty', description: 'Keep editing (saving again will conflict again).' },
          },
        },
        saved: {
          description: 'The update was saved; the form is what the server holds.',
          tags: ['saved'],
        },
      },
    },
    validating: {
      description:
        "Spec section 5: 'Agent name is required', 'LLM model is required', 'Voice is required', 'Language is required'...",
      always: [
        { guard: 'isValid', target: 'saving', actions: 'clearErrors', description: 'Every field is valid.' },
        {
          guard: 'isDirty',
          target: 'editing.dirty',
          actions: ['showErrors', { type: 'focusField', params: ({ context }) => ({ field: firstErrorField(context.errors) }) }],
          description: 'Messages next to the fields; the first invalid field gets the focus.',
        },
        {
          target: 'editing.pristine',
          description: 'An untouched new agent still needs a voice.',
          actions: ['showErrors', { type: 'focusField', params: ({ context }) => ({ field: firstErrorField(context.errors) }) }],
        },
      ],
    },
    saving: {
      description: 'POST /agent (new) or PUT /agent/{id} with the loaded version. The draft is flushed first.',
      tags: ['saving', 'unsaved'],
      entry: ['writeDraft', 'startSaving'],
      on: {
        'field.change': { actions: 'applyChange', description: 'Typing goes on while the save is in flight.' },
        'voice.choose': { actions: 'applyChange', description: 'Choosing a voice while the save is in flight.' },
        'name.commit': { guard: 'isNotBlankName', actions: 'applyChange', description: 'Renaming while the save is in flight.' },
      },
      invoke: {
        id: 'saveAgent',
        src: 'saveAgent',
        input: ({ context }) => ({ ...saveRequestOf(context), idempotencyKey: context.attempt?.key ?? newIdempotencyKey() }),
        onDone: [
          {
            guard: 'wasCreate',
            description: 'POST /agent answered 201.',
            target: 'created',
            actions: ['acceptSaved', 'clearDraft', { type: 'notify', params: EDITOR_TOASTS.created }, 'goToList'],
          },
          {
            guard: 'editedWhileSaving',
            description: 'Saved, but the form changed meanwhile: those edits are still unsaved.',
            target: 'editing.dirty',
            actions: ['acceptSaved', { type: 'notify', params: EDITOR_TOASTS.updated }],
          },
          {
            target: 'editing.saved',
            description: "PUT /agent/{id} answered: 'Agent updated successfully!'.",
            actions: ['acceptSaved', 'clearDraft', { type: 'notify', params: EDITOR_TOASTS.updated }],
          },
        ],
        onError: [
          {
            guard: 'isConflict',
            description: '409: someone saved a newer version.',
            target: 'editing.conflicted',
            actions: ['stopSaving', { type: 'notify', params: EDITOR_TOASTS.conflict }],
          },
          {
            target: 'editing.failed',
            description: 'Any other failure: the server msg in a destructive toast.',
            actions: [
              'stopSaving',
              {
                type: 'notify',
                params: ({ context, event }) => EDITOR_TOASTS.saveFailed(context.agent === undefined, event.error),
              },
            ],
          },
        ],
      },
    },
    created: {
      description: "'New agent created successfully!' and back to /dashboard.",
      tags: ['saved'],
    },
  },
});
