import { assign, fromPromise, setup } from 'xstate';
import type { KnowledgeBase } from '../api/contract/knowledge-base';
import { isApiError } from '../api/errors';
import { knowledgeBases, type NewKnowledgeBase } from '../api/knowledge-bases';

export interface KnowledgeBaseUploadContext {
  /** why the last upload was refused (shown in the dialog; the entries stay) */
  error: string | undefined;
}

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
    upload: fromPromise<KnowledgeBase, NewKnowledgeBase>(
      async ({ input, signal }) => (await knowledgeBases.create(input, { notify: false, signal })).data.knowledge_base,
    ),
  },
  actions: {
    uploaded: (_, _kb: KnowledgeBase) => {},
  },
}).createMachine({
  id: 'knowledgeBaseUpload',
  description: 'Upload a new knowledge base from the agent editor.',
  context: { error: undefined },
  initial: 'closed',
  states: {
    closed: {
      on: { 'dialog.open': { target: 'open', actions: assign({ error: undefined }) } },
    },
    open: {
      tags: ['open'],
      on: {
        'dialog.close': 'closed',
        'upload.submit': 'uploading',
      },
    },
    uploading: {
      description: 'The files stream to the server; it checks each by content (10 MB each) and queues the processing.',
      tags: ['open', 'uploading'],
      invoke: {
        id: 'upload',
        src: 'upload',
        input: ({ event }) => (event as Extract<KnowledgeBaseUploadEvent, { type: 'upload.submit' }>).knowledgeBase,
        onDone: { target: 'closed', actions: { type: 'uploaded', params: ({ event }) => event.output } },
        onError: {
          target: 'open',
          actions: assign({
            error: ({ event }) =>
              isApiError(event.error)
                ? (event.error.serverMessage ?? event.error.message)
                : 'The upload failed. Please try again.',
          }),
        },
      },
    },
  },
});
