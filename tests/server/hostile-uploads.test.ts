/**
 * Nothing a tenant uploads may stall the server. Hostile knowledge-base documents go through
 * the real upload route and the real background worker (files read in a worker thread); the test checks
 * that the server keeps answering while they are read and that each ends as it should: hostile HTML read
 * in linear time (complete), PDFs past a limit failed with the clear reason.
 */
import { expect, it } from 'vitest';
import { createApp } from '../../server/app.js';
import { EXTRACT_LIMITS } from '../../server/modules/knowledge/kb.extract.js';
import { createKnowledgeWorker, type KnowledgeWorker } from '../../server/modules/knowledge/kb.worker.js';
import { createEventLoopMonitor } from '../../server/platform/log/event-loop.js';
import { KB_MESSAGES } from '../../src/api/contract/knowledge-base.js';
import {
  deepNestingHtml,
  flateBombPdf,
  hugeAttributeHtml,
  manyPagesPdf,
  unclosedCommentsHtml,
  unclosedTagsHtml,
} from '../fixtures/hostile.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
type Body = any;

const MiB = 1024 * 1024;

async function call(t: TestApp, method: string, url: string, token?: string, body?: FormData) {
  const res = await t.req(method, `/api/v1${url}`, { token, body });
  return { status: res.status, body: (await res.json()) as Body };
}

async function uploadFile(t: TestApp, token: string, name: string, bytes: string | Buffer): Promise<string> {
  const form = new FormData();
  form.set('knowledge_base_name', name);
  form.append('knowledge_base_files', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)]), name);
  const res = await call(t, 'POST', '/knowledge-base', token, form);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.knowledge_base.knowledge_base_id;
}

describeEachDb('hostile knowledge-base uploads', (kind) => {
  const t = useTestApp(kind);
  let worker: KnowledgeWorker | undefined;
  const startWorker = (limits: Partial<typeof EXTRACT_LIMITS>) => {
    worker = createKnowledgeWorker(t().deps, { pollMs: 20, extractLimits: { ...EXTRACT_LIMITS, ...limits } });
    worker.start();
  };
  const stopWorker = async () => {
    await worker?.stop();
    worker = undefined;
  };
  const kbOf = async (token: string, id: string) =>
    (await call(t(), 'GET', `/knowledge-base/${id}`, token)).body.data.knowledge_base as {
      status: string;
      error_message?: string;
      chunk_count: number;
    };

  it('reads hostile HTML in linear time: each upload completes with its visible text', async () => {
    const { token } = await signUp(t());
    const files: [string, string, string][] = [
      ['br.html', unclosedTagsHtml(1_000_000), 'hi'],
      ['comments.html', unclosedCommentsHtml(1_000_000), 'hi'],
      ['nesting.html', deepNestingHtml(200_000), 'deep text'],
      ['attribute.html', hugeAttributeHtml(8 * MiB), 'before'],
    ];
    const ids = [];
    for (const [name, html] of files) ids.push(await uploadFile(t(), token, name, html));
    startWorker({});
    try {
      for (const id of ids) await expect.poll(async () => (await kbOf(token, id)).status, { timeout: 30_000 }).toBe('complete');
    } finally {
      await stopWorker();
    }
    for (const [i, id] of ids.entries()) {
      const chunks = await t()
        .deps.db.db.selectFrom('knowledge_base_chunks')
        .select('content')
        .where('knowledge_base_id', '=', id)
        .execute();
      expect(chunks.map((c) => c.content)).toEqual([files[i]![2]]);
    }
  }, 120_000);

  it('keeps answering while a PDF is read, ends it on its time limit, and fails decompression bombs as too complex', async () => {
    const { token } = await signUp(t());
    const eventLoop = createEventLoopMonitor();
    const app = createApp({ ...t().deps, eventLoop });
    try {
      const pages = await uploadFile(t(), token, 'pages.pdf', manyPagesPdf(20_000));
      const bomb = await uploadFile(t(), token, 'bomb.pdf', flateBombPdf());
      const layered = await uploadFile(t(), token, 'layered.pdf', flateBombPdf(170 * MiB, 2));
      // a time limit the page-by-page reading of 20,000 pages passes (it runs for minutes without one)
      startWorker({ timeMs: 4000, pdfDecodedBytes: 4 * MiB });
      await expect.poll(async () => (await kbOf(token, pages)).status, { timeout: 30_000 }).toBe('processing');
      // the event loop is free: health and a list request answer while the document is still being read
      const health = await app.request('/api/v1/health');
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ success: true, db: kind, event_loop: { p99_ms: expect.any(Number) } });
      const list = await call(t(), 'GET', '/knowledge-base', token);
      expect(list.status).toBe(200);
      expect(list.body.data.total).toBe(3);
      expect((await kbOf(token, pages)).status).toBe('processing');

      for (const [id, name] of [
        [pages, 'pages.pdf'],
        [bomb, 'bomb.pdf'],
        [layered, 'layered.pdf'],
      ] as const) {
        await expect.poll(async () => (await kbOf(token, id)).status, { timeout: 60_000 }).toBe('failed');
        expect(await kbOf(token, id)).toMatchObject({ error_message: KB_MESSAGES.tooComplex(name), chunk_count: 0 });
      }
      // failed for good: no retry is scheduled
      const jobs = await t().deps.db.db.selectFrom('knowledge_base_jobs').select(['status', 'attempts']).execute();
      expect(jobs).toEqual([
        { status: 'failed', attempts: 1 },
        { status: 'failed', attempts: 1 },
        { status: 'failed', attempts: 1 },
      ]);
    } finally {
      await stopWorker();
      eventLoop.stop();
    }
  }, 180_000);
});
