import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { KnowledgeBase } from '../../src/api/contract/knowledge-base.js';
import { ApiError } from '../../src/api/errors.js';
import type { NewKnowledgeBase } from '../../src/api/knowledge-bases.js';
import { knowledgeBaseUploadMachine, type UploadInput } from '../../src/machines/knowledgeBaseUpload.machine.js';
import { describeModel } from './harness.js';

const KB: KnowledgeBase = {
  knowledge_base_id: 'kb1',
  knowledge_base_name: 'FAQ',
  knowledge_base_sources: [{ filename: 'faq.md', type: 'text/markdown', file_size: 10 }],
  enable_auto_refresh: false,
  status: 'pending',
  chunk_count: 0,
  user_modified_timestamp: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const NEW: NewKnowledgeBase = {
  name: 'FAQ',
  files: [],
  texts: [{ title: '', text: 'Hours 10-5' }],
  urls: [],
  enableAutoRefresh: false,
};

describeModel('knowledgeBaseUpload', knowledgeBaseUploadMachine, {
  implementations: { actions: { uploaded: () => {} } },
  events: {
    'upload.submit': [{ type: 'upload.submit', knowledgeBase: NEW }],
    'xstate.done.actor.upload': [{ type: 'xstate.done.actor.upload', output: KB }],
    'xstate.error.actor.upload': [
      {
        type: 'xstate.error.actor.upload',
        error: new ApiError({ kind: 'http', status: 400, serverMessage: 'x.pdf is not a PDF file' }),
      },
      { type: 'xstate.error.actor.upload', error: new Error('boom') },
    ],
  },
});

describe('knowledgeBaseUpload behaviour', () => {
  it('uploads, hands the new base over and closes; a refusal keeps the dialog open with the reason', async () => {
    const uploaded: KnowledgeBase[] = [];
    const sent: UploadInput[] = [];
    let refuse = true;
    const actor = createActor(
      knowledgeBaseUploadMachine.provide({
        actors: {
          upload: fromPromise<KnowledgeBase, UploadInput>(async ({ input }) => {
            sent.push(input);
            if (refuse) throw new ApiError({ kind: 'http', status: 413, serverMessage: 'big.pdf is larger than 10 MB' });
            return KB;
          }),
        },
        actions: { uploaded: (_, kb) => uploaded.push(kb) },
      }),
    ).start();
    actor.send({ type: 'dialog.open' });
    actor.send({ type: 'upload.submit', knowledgeBase: NEW });
    expect(actor.getSnapshot().hasTag('uploading')).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('big.pdf is larger than 10 MB');
    refuse = false;
    actor.send({ type: 'upload.submit', knowledgeBase: NEW });
    await new Promise((r) => setTimeout(r, 0));
    expect(actor.getSnapshot().matches('closed')).toBe(true);
    expect(uploaded).toEqual([KB]);
    expect(sent.map((x) => x.knowledgeBase)).toEqual([NEW, NEW]);
    // the retry of the same entries is the same action: the server answers it once
    expect(sent[1]?.idempotencyKey).toBe(sent[0]?.idempotencyKey);
    actor.send({ type: 'dialog.open' });
    expect(actor.getSnapshot().context.error).toBeUndefined();
    // a new upload after success is a new action, and so are changed entries after a refusal
    refuse = true;
    actor.send({ type: 'upload.submit', knowledgeBase: NEW });
    await new Promise((r) => setTimeout(r, 0));
    actor.send({ type: 'upload.submit', knowledgeBase: { ...NEW, name: 'FAQ 2' } });
    await new Promise((r) => setTimeout(r, 0));
    const keys = sent.map((x) => x.idempotencyKey);
    expect(new Set(keys).size).toBe(3);
    expect(keys[2]).not.toBe(keys[0]);
  });
});
