import { assign, fromPromise, setup } from 'xstate';
import { type ActionKey, actionKey, newIdempotencyKey } from '../api/contract/idempotency';
import type { KnowledgeBase } from '../api/contract/knowledge-base';
import { isApiError } from '../api/errors';
import { knowledgeBases, type NewKnowledgeBase } from '../api/knowledge-bases';

export interface KnowledgeBaseUploadContext {
  /** why the last upload was refused (shown in the dialog; the entries stay) */
  error: string | undefined;
  /** the Idempotency-Key of the upload being attempted (the same entries sent again reuse it) */
  attempt: ActionKey | undefined;
}

export interface UploadInput {
  knowledgeBase: NewKnowledgeBase;
  idempotencyKey: string;
}

const submitted = (event: KnowledgeBaseUploadEvent) =>
  (event as Extract<KnowledgeBaseUploadEvent, { type: 'upload.submit' }>).knowledgeBase;

export type KnowledgeBaseUploadEvent =
  | { type: 'dialog.open' }
  | { type: 'dialog.close' }
  | { type: 'upload.submit'; knowledgeBase: NewKnowledgeBase };

/**
 * The editor's 'Upload a knowledge base' dialog: open -> uploading (POST /knowledge-base, multipart) ->
 * closed with the new base chosen for the agent (`uploaded`), or back to open with the server's reason.
 * The dialog's entries live in the view and survive a refusal.
 */
export const knowledgeBaseUploadMachine = setup({
  types: {
    context: {} as KnowledgeBaseUploadContext,
    events: {} as KnowledgeBaseUploadEvent,
    tags: {} as 'open' | 'uploading',
  },
  actors: {
    upload: fromPromise<KnowledgeBase, UploadInput>(
      async ({ input, signal }) =>
        (await knowledgeBases.create(input.knowledgeBase, { notify: false, signal, idempotencyKey: input.idempotencyKey })).data
          .knowledge_base,
    ),
  },
  actions: {
    uploaded: (_, _kb: KnowledgeBase) => {},
    startOver: assign({ error: undefined, attempt: undefined }),
    keyAttempt: assign({
      attempt: ({ context }, params: { knowledgeBase: unknown }) => actionKey(context.attempt, params.knowledgeBase),
    }),
    forgetAttempt: assign({ attempt: undefined }),
    showFailure: assign({
      error: (_, params: { error: unknown }) =>
        isApiError(params.error) ? (params.error.serverMessage ?? params.error.message) : 'The upload failed. Please try again.',
    }),
  },
}).createMachine({
  id: 'knowledgeBaseUpload',
  description: 'Upload a new knowledge base from the agent editor.',
  context: { error: undefined, attempt: undefined },
  initial: 'closed',
  states: {
    closed: {
      on: {
        'dialog.open': {
          target: 'open',
          description: "'Upload' in the editor's knowledge base section opens the dialog.",
          actions: 'startOver',
        },
      },
    },
    open: {
      tags: ['open'],
      on: {
        'dialog.close': { target: 'closed', description: 'Cancel or Escape: nothing is uploaded.' },
        'upload.submit': {
          target: 'uploading',
          description: 'The same entries sent again (a retry) reuse the Idempotency-Key of the first attempt.',
          actions: { type: 'keyAttempt', params: ({ event }) => ({ knowledgeBase: event.knowledgeBase }) },
        },
      },
    },
    uploading: {
      description: 'The files stream to the server; it checks each by content (10 MB each) and queues the processing.',
      tags: ['open', 'uploading'],
      invoke: {
        id: 'upload',
        src: 'upload',
        input: ({ context, event }) => ({
          knowledgeBase: submitted(event),
          idempotencyKey: context.attempt?.key ?? newIdempotencyKey(),
        }),
        onDone: {
          target: 'closed',
          description: 'Uploaded: the dialog closes; the new knowledge base is listed (processing).',
          actions: ['forgetAttempt', { type: 'uploaded', params: ({ event }) => event.output }],
        },
        onError: {
          target: 'open',
          description: 'Refused or failed: the reason in the dialog; the entries stay to try again.',
          actions: { type: 'showFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
  },
});
