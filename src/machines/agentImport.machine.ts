import { assign, fromPromise, setup } from 'xstate';
import { agents } from '../api/agents';
import { AGENT_IMPORT_MAX_BYTES, AGENT_IMPORT_MESSAGES, parseAgentImport } from '../api/contract/agent/export';
import type { AgentResponse } from '../api/contract/agent/responses';
import type { AgentSavePayload } from '../api/contract/agent/save';
import { type ActionKey, actionKey, newIdempotencyKey } from '../api/contract/idempotency';
import { isApiError } from '../api/errors';
import { agentEffects } from './agent-effects';
import type { ToastMessage } from './notify';

export const AGENT_IMPORT_TOASTS = {
  imported: (name: string): ToastMessage => ({
    title: 'Agent imported',
    description: `“${name}” has been added to your agents.`,
  }),
  failed: (msg: string): ToastMessage => ({ title: 'Import failed', description: msg, variant: 'destructive' }),
};

export const AGENT_CREATE_FAILED = 'Could not create the agent. Please try again.';

/** What Import reads: a browser File (only its size and text are used). */
export interface ImportFile {
  name: string;
  size: number;
  text(): Promise<string>;
}

export type AgentImportEvent = { type: 'file.pick'; file: ImportFile };

export interface AgentImportContext {
  file: ImportFile | undefined;
  payload: AgentSavePayload | undefined;
  /**
   * The Idempotency-Key of the import being attempted: importing the same agent again after a failure
   * reuses it (a create whose answer was lost is answered, not repeated); a success forgets it.
   */
  attempt: ActionKey | undefined;
}

export interface CreateInput {
  payload: AgentSavePayload;
  idempotencyKey: string;
}

/** Reads and validates an export file; rejects with the message the toast shows. */
export async function readAgentFile(file: ImportFile): Promise<AgentSavePayload> {
  if (file.size > AGENT_IMPORT_MAX_BYTES) throw new Error(AGENT_IMPORT_MESSAGES.tooLarge);
  const result = parseAgentImport(await file.text());
  if (!result.ok) throw new Error(result.message);
  return result.payload;
}

const messageOf = (error: unknown, fallback: string) =>
  isApiError(error) ? (error.serverMessage ?? fallback) : error instanceof Error ? error.message : fallback;

/**
 * 'Import' on the Agents page: the chosen file is read and validated with the contract
 * (`parseAgentImport`: an export envelope or a bare save payload); a valid agent is created with
 * POST /agent (the list reloads: the create invalidates the cached list). A bad file, or a refusal by
 * the server, toasts what is wrong and creates nothing.
 */
export const agentImportMachine = setup({
  types: {
    context: {} as AgentImportContext,
    events: {} as AgentImportEvent,
  },
  actors: {
    readFile: fromPromise<AgentSavePayload, ImportFile>(({ input }) => readAgentFile(input)),
    createAgent: fromPromise<AgentResponse, CreateInput>(({ input, signal }) =>
      agents.create(input.payload, { notify: false, signal, idempotencyKey: input.idempotencyKey }),
    ),
  },
  actions: {
    notify: agentEffects.notify,
    takeFile: assign({ file: (_, params: { file: ImportFile }) => params.file }),
    keepPayload: assign(({ context }, params: { payload: AgentSavePayload }) => ({
      file: undefined,
      payload: params.payload,
      attempt: actionKey(context.attempt, params.payload),
    })),
    forgetFile: assign({ file: undefined }),
    forgetAttempt: assign({ payload: undefined, attempt: undefined }),
    forgetPayload: assign({ payload: undefined }),
  },
}).createMachine({
  id: 'agentImport',
  description: 'Import an agent from a file made by Export.',
  context: { file: undefined, payload: undefined, attempt: undefined },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'file.pick': {
          target: 'reading',
          description: "'Import' and a file chosen: read it.",
          actions: { type: 'takeFile', params: ({ event }) => ({ file: event.file }) },
        },
      },
    },
    reading: {
      tags: ['busy'],
      description: 'Reads the file and validates it with the agent contract.',
      invoke: {
        id: 'readFile',
        src: 'readFile',
        input: ({ context }) => context.file!,
        onDone: {
          target: 'creating',
          description: 'The same agent imported again after a failure reuses the Idempotency-Key of that attempt.',
          actions: { type: 'keepPayload', params: ({ event }) => ({ payload: event.output }) },
        },
        onError: {
          target: 'idle',
          description: 'Not JSON, not an agent export, or an invalid agent: nothing is created.',
          actions: [
            'forgetFile',
            {
              type: 'notify',
              params: ({ event }) => AGENT_IMPORT_TOASTS.failed(messageOf(event.error, AGENT_IMPORT_MESSAGES.notAgent)),
            },
          ],
        },
      },
    },
    creating: {
      tags: ['busy'],
      description: 'POST /agent with the validated payload.',
      invoke: {
        id: 'createAgent',
        src: 'createAgent',
        input: ({ context }) => ({ payload: context.payload!, idempotencyKey: context.attempt?.key ?? newIdempotencyKey() }),
        onDone: {
          target: 'idle',
          description: "Created: 'Agent imported' names it; the list reloads with it.",
          actions: [
            'forgetAttempt',
            { type: 'notify', params: ({ event }) => AGENT_IMPORT_TOASTS.imported(event.output.data.agent.name) },
          ],
        },
        onError: {
          target: 'idle',
          description: "Refused or failed: the reason in a toast; the same file again reuses this attempt's key.",
          actions: [
            'forgetPayload',
            { type: 'notify', params: ({ event }) => AGENT_IMPORT_TOASTS.failed(messageOf(event.error, AGENT_CREATE_FAILED)) },
          ],
        },
      },
    },
  },
});
