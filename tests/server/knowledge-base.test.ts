import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { EXTRACT_LIMITS, extractChunks } from '../../server/modules/knowledge/kb.extract.js';
import { kbDir } from '../../server/modules/knowledge/kb.repo.js';
import { createKnowledgeWorker, GENERIC_FAILURE, LEASE_MS, MAX_ATTEMPTS } from '../../server/modules/knowledge/kb.worker.js';
import { KB_FILE_MAX_BYTES, type KnowledgeBase } from '../../src/api/contract/knowledge-base.js';
import { makePdf } from '../fixtures/pdf.js';
import { signUp, TINY_PNG } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
type Body = any;

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  return { status: res.status, body: (await res.json()) as Body };
}

interface Upload {
  name?: string;
  files?: { name: string; bytes: Uint8Array | string; type?: string }[];
  texts?: unknown[];
  urls?: string[];
  autoRefresh?: string;
}

function form(u: Upload): FormData {
  const f = new FormData();
  if (u.name !== undefined) f.set('knowledge_base_name', u.name);
  for (const file of u.files ?? [])
    f.append(
      'knowledge_base_files',
      new Blob([typeof file.bytes === 'string' ? file.bytes : new Uint8Array(file.bytes)], {
        type: file.type ?? 'application/octet-stream',
      }),
      file.name,
    );
  for (const text of u.texts ?? []) f.append('knowledge_base_texts', typeof text === 'string' ? text : JSON.stringify(text));
  for (const url of u.urls ?? []) f.append('knowledge_base_urls', url);
  if (u.autoRefresh !== undefined) f.set('enable_auto_refresh', u.autoRefresh);
  return f;
}

const upload = (t: TestApp, token: string, u: Upload) => call(t, 'POST', '/knowledge-base', { token, body: form(u) });

async function stored(t: TestApp) {
  const db = t.deps.db.db;
  const [bases, jobs, chunks] = await Promise.all([
    db.selectFrom('knowledge_bases').select('id').execute(),
    db.selectFrom('knowledge_base_jobs').select('id').execute(),
    db.selectFrom('knowledge_base_chunks').select('position').execute(),
  ]);
  const root = path.join(t.dataDir, 'knowledge-base');
  const files = fs.existsSync(root)
    ? fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    : [];
  return { bases: bases.length, jobs: jobs.length, chunks: chunks.length, files: files.length };
}

const PDF = makePdf([['Nursing team hours', 'Monday to Friday, 10:00 AM to 5:00 PM'], ['Parking is free for patients.']]);
const MD = '# FAQ\n\nWe answer the phone **24/7**.';
const CSV = 'item,price\ncheck-up,40\n';
const HTML =
  '<!doctype html><html><head><title>x</title><style>p{}</style></head><body><h1>Visiting</h1><p>Visitors welcome &amp; kind</p><script>alert(1)</script></body></html>';

describeEachDb('knowledge bases', (kind) => {
  const t = useTestApp(kind);

  it('stores a good upload as pending, then the worker extracts and chunks it to complete', async () => {
    const { token, companyId } = await signUp(t());
    const res = await upload(t(), token, {
      name: '  Clinic FAQ  ',
      files: [
        { name: 'hours.pdf', bytes: PDF },
        { name: 'faq.md', bytes: MD },
        { name: 'prices.csv', bytes: CSV },
        { name: 'C:\\Users\\me\\visit.html', bytes: HTML },
        { name: 'notes.txt', bytes: '\uFEFFPlain notes, ünïcode ✓' },
      ],
      texts: [{ title: 'Directions', text: 'Take bus 12 to Elm Street.' }, { text: 'Untitled text' }],
      urls: ['https://example.com/faq'],
      autoRefresh: 'true',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const kb = res.body.data.knowledge_base as KnowledgeBase;
    expect(kb).toMatchObject({
      knowledge_base_name: 'Clinic FAQ',
      status: 'pending',
      enable_auto_refresh: true,
      chunk_count: 0,
      user_modified_timestamp: t().clock.now().getTime(),
    });
    expect(kb.knowledge_base_sources).toEqual([
      { filename: 'hours.pdf', type: 'application/pdf', file_size: PDF.length },
      { filename: 'faq.md', type: 'text/markdown', file_size: Buffer.byteLength(MD) },
      { filename: 'prices.csv', type: 'text/csv', file_size: Buffer.byteLength(CSV) },
      { filename: 'visit.html', type: 'text/html', file_size: Buffer.byteLength(HTML) },
      { filename: 'notes.txt', type: 'text/plain', file_size: Buffer.byteLength('\uFEFFPlain notes, ünïcode ✓') },
      { filename: 'Directions', type: 'text' },
      { filename: 'Text 2', type: 'text' },
      { filename: 'https://example.com/faq', type: 'url', file_url: 'https://example.com/faq' },
    ]);
    expect(fs.readdirSync(kbDir(t().dataDir, companyId, kb.knowledge_base_id)).sort()).toEqual([
      '0.pdf',
      '1.md',
      '2.csv',
      '3.html',
      '4.txt',
    ]);

    const worker = createKnowledgeWorker(t().deps, { workerId: 'w1' });
    expect(await worker.runOnce()).toBe(true);
    expect(await worker.runOnce()).toBe(false);
    await worker.stop();

    const one = await call(t(), 'GET', `/knowledge-base/${kb.knowledge_base_id}`, { token });
    expect(one.body.data.knowledge_base).toMatchObject({ status: 'complete', chunk_count: 7 });
    expect(one.body.data.knowledge_base.error_message).toBeUndefined();
    // the single read carries the texts; the list does not
    expect(one.body.data.knowledge_base.knowledge_base_sources[5]).toEqual({
      filename: 'Directions',
      type: 'text',
      content: 'Take bus 12 to Elm Street.',
    });
    const chunks = await t()
      .deps.db.db.selectFrom('knowledge_base_chunks')
      .select(['content', 'source_index'])
      .where('knowledge_base_id', '=', kb.knowledge_base_id)
      .orderBy('position')
      .execute();
    expect(chunks.map((c) => c.source_index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(chunks[0]?.content).toBe('Nursing team hours\nMonday to Friday, 10:00 AM to 5:00 PM\n\nParking is free for patients.');
    expect(chunks[3]?.content).toBe('Visiting\nVisitors welcome & kind');
    expect(chunks[4]?.content).toBe('Plain notes, ünïcode ✓');

    const listed = await call(t(), 'GET', '/knowledge-base', { token });
    expect(listed.body.data.total).toBe(1);
    expect(listed.body.data.knowledge_bases[0]).toMatchObject({ knowledge_base_id: kb.knowledge_base_id, status: 'complete' });
    expect(listed.body.data.knowledge_bases[0].knowledge_base_sources[5]).toEqual({ filename: 'Directions', type: 'text' });
  });

  it('refuses a file whose content does not match its type with a clear 400 and stores nothing', async () => {
    const { token } = await signUp(t());
    const cases: [Upload['files'], string][] = [
      [[{ name: 'notes.txt', bytes: TINY_PNG }], 'notes.txt is not a UTF-8 text file'],
      [[{ name: 'report.pdf', bytes: 'just text, not a PDF' }], 'report.pdf is not a PDF file'],
      [[{ name: 'latin1.csv', bytes: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) }], 'latin1.csv is not a UTF-8 text file'],
      [[{ name: 'photo.png', bytes: TINY_PNG }], 'photo.png: only TXT, MD, CSV, HTML or PDF files are allowed'],
      [[{ name: 'empty.md', bytes: '' }], 'empty.md is empty'],
      // a good file next to a bad one: the good one is not kept either
      [
        [
          { name: 'good.txt', bytes: 'fine' },
          { name: 'bad.html', bytes: Buffer.from([0x3c, 0x70, 0x3e, 0x00, 0x01]) },
        ],
        'bad.html is not a UTF-8 text file',
      ],
    ];
    for (const [files, msg] of cases) {
      const res = await upload(t(), token, { name: 'KB', files });
      expect(res, msg).toEqual({ status: 400, body: { success: false, msg } });
    }
    expect(await stored(t())).toEqual({ bases: 0, jobs: 0, chunks: 0, files: 0 });
  });

  it('answers 413 for a file over 10 MB without keeping anything', async () => {
    const { token } = await signUp(t());
    const big = new Uint8Array(KB_FILE_MAX_BYTES + 1).fill(0x61);
    const res = await upload(t(), token, {
      name: 'Big',
      files: [
        { name: 'small.txt', bytes: 'ok' },
        { name: 'big.txt', bytes: big },
      ],
    });
    expect(res).toEqual({ status: 413, body: { success: false, msg: 'big.txt is larger than 10 MB' } });
    // exactly 10 MB is fine
    const edge = await upload(t(), token, { name: 'Edge', files: [{ name: 'edge.txt', bytes: big.subarray(1) }] });
    expect(edge.status).toBe(201);
    expect(await stored(t())).toMatchObject({ bases: 1, files: 1 });
  });

  it('validates the name, the texts, the URLs and the fields', async () => {
    const { token } = await signUp(t());
    const bad: [Upload, string][] = [
      [{ files: [{ name: 'a.txt', bytes: 'x' }] }, 'Knowledge base name is required'],
      [{ name: '   ', files: [{ name: 'a.txt', bytes: 'x' }] }, 'Knowledge base name is required'],
      [{ name: 'KB' }, 'Add at least one file, text or URL'],
      [{ name: 'KB', texts: ['not json'] }, 'Each text must be JSON with a title and a text'],
      [{ name: 'KB', texts: [{ title: 'Empty', text: '  ' }] }, 'Text is required'],
      [{ name: 'KB', urls: ['ftp://example.com/x'] }, 'ftp://example.com/x is not a valid http(s) URL'],
      [{ name: 'KB', urls: ['https://ok.example'], autoRefresh: 'maybe' }, "enable_auto_refresh must be 'true' or 'false'"],
    ];
    for (const [u, msg] of bad) {
      const res = await upload(t(), token, u);
      expect(res.status, msg).toBe(400);
      expect(res.body.msg).toBe(msg);
    }
    const unknown = new FormData();
    unknown.set('knowledge_base_name', 'KB');
    unknown.set('other', 'x');
    expect((await call(t(), 'POST', '/knowledge-base', { token, body: unknown })).body.msg).toBe("Unknown field 'other'");
    const json = await call(t(), 'POST', '/knowledge-base', { token, body: { knowledge_base_name: 'KB' } });
    expect(json).toEqual({ status: 400, body: { success: false, msg: 'Send the knowledge base as multipart/form-data' } });
    expect(await stored(t())).toEqual({ bases: 0, jobs: 0, chunks: 0, files: 0 });
    expect((await call(t(), 'POST', '/knowledge-base', { body: form({ name: 'KB', urls: ['https://a.example'] }) })).status).toBe(
      401,
    );
  });

  it('fails a PDF without a text layer, and an unreadable PDF, with their reasons', async () => {
    const { token } = await signUp(t());
    const scanned = await upload(t(), token, { name: 'Scan', files: [{ name: 'scan.pdf', bytes: makePdf([]) }] });
    const broken = await upload(t(), token, { name: 'Broken', files: [{ name: 'broken.pdf', bytes: '%PDF-1.7 truncated' }] });
    const worker = createKnowledgeWorker(t().deps);
    while (await worker.runOnce()) {}
    await worker.stop();
    const get = async (r: { body: Body }) =>
      (await call(t(), 'GET', `/knowledge-base/${r.body.data.knowledge_base.knowledge_base_id}`, { token })).body.data
        .knowledge_base;
    expect(await get(scanned)).toMatchObject({
      status: 'failed',
      error_message: 'No text could be read from scan.pdf (scanned PDFs are not supported)',
      chunk_count: 0,
    });
    expect(await get(broken)).toMatchObject({ status: 'failed', error_message: 'broken.pdf could not be read as a PDF' });
  });

  it('resumes a job whose worker died once its lease runs out (a restart)', async () => {
    const { token } = await signUp(t());
    const res = await upload(t(), token, { name: 'Resume', texts: [{ title: 'T', text: 'Resumed text.' }] });
    const id = res.body.data.knowledge_base.knowledge_base_id as string;
    // a worker claimed the job (lease running) and then the process died before it finished
    await t()
      .deps.db.db.updateTable('knowledge_base_jobs')
      .set({
        status: 'running',
        worker: 'died',
        attempts: 1,
        lease_until: new Date(t().clock.now().getTime() + LEASE_MS).toISOString(),
      })
      .execute();
    await t().deps.db.db.updateTable('knowledge_bases').set({ status: 'processing' }).execute();

    const restarted = createKnowledgeWorker(t().deps, { workerId: 'restarted' });
    expect(await restarted.runOnce()).toBe(false);
    t().clock.advance(LEASE_MS + 1);
    expect(await restarted.runOnce()).toBe(true);
    const kb = (await call(t(), 'GET', `/knowledge-base/${id}`, { token })).body.data.knowledge_base;
    expect(kb).toMatchObject({ status: 'complete', chunk_count: 1 });
    const job = await t().deps.db.db.selectFrom('knowledge_base_jobs').selectAll().executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'done', worker: 'restarted', attempts: 2, lease_until: null });
  });

  it('fails a job whose process died on every attempt once it has been claimed MAX_ATTEMPTS times, without reading it again', async () => {
    const { token } = await signUp(t());
    const res = await upload(t(), token, { name: 'Killer', files: [{ name: 'k.txt', bytes: 'Kills the process' }] });
    const id = res.body.data.knowledge_base.knowledge_base_id as string;
    const job = () => t().deps.db.db.selectFrom('knowledge_base_jobs').selectAll().executeTakeFirstOrThrow();
    // each "process" claims the job and dies while reading the file (the read never returns)
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const doomed = createKnowledgeWorker(t().deps, {
        workerId: `process-${attempt}`,
        extractFile: () => new Promise(() => {}),
      });
      void doomed.runOnce();
      await expect.poll(async () => (await job()).attempts).toBe(attempt);
      expect(await job()).toMatchObject({ status: 'running', worker: `process-${attempt}` });
      t().clock.advance(LEASE_MS + 1);
    }
    let reads = 0;
    const last = createKnowledgeWorker(t().deps, {
      workerId: 'last',
      extractFile: async () => {
        reads++;
        return ['never'];
      },
    });
    expect(await last.runOnce()).toBe(true);
    expect(reads).toBe(0);
    expect(await job()).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS + 1, lease_until: null });
    const kb = (await call(t(), 'GET', `/knowledge-base/${id}`, { token })).body.data.knowledge_base;
    expect(kb).toMatchObject({ status: 'failed', error_message: GENERIC_FAILURE });
    expect(await last.runOnce()).toBe(false);
  });

  it('retries a passing failure later and gives up after the last attempt', async () => {
    const { token } = await signUp(t());
    const res = await upload(t(), token, { name: 'Flaky', files: [{ name: 'a.txt', bytes: 'Alpha' }] });
    const id = res.body.data.knowledge_base.knowledge_base_id as string;
    let failures = 1;
    const worker = createKnowledgeWorker(t().deps, {
      extractFile: async (file, kind, name) => {
        if (failures-- > 0) throw new Error('disk busy');
        const read = await extractChunks({ file, kind, filename: name, limits: EXTRACT_LIMITS });
        return 'chunks' in read ? read.chunks : [];
      },
    });
    expect(await worker.runOnce()).toBe(true);
    const status = async () => (await call(t(), 'GET', `/knowledge-base/${id}`, { token })).body.data.knowledge_base.status;
    expect(await status()).toBe('pending');
    expect(await worker.runOnce()).toBe(false); // not due yet
    t().clock.advance(30_000);
    expect(await worker.runOnce()).toBe(true);
    expect(await status()).toBe('complete');

    const doomed = await upload(t(), token, { name: 'Doomed', files: [{ name: 'b.txt', bytes: 'Beta' }] });
    const never = createKnowledgeWorker(t().deps, {
      maxAttempts: 2,
      extractFile: async () => {
        throw new Error('always');
      },
    });
    expect(await never.runOnce()).toBe(true);
    t().clock.advance(60_000);
    expect(await never.runOnce()).toBe(true);
    const kb = (await call(t(), 'GET', `/knowledge-base/${doomed.body.data.knowledge_base.knowledge_base_id}`, { token })).body
      .data.knowledge_base;
    expect(kb).toMatchObject({ status: 'failed', error_message: GENERIC_FAILURE });
  });

  it('runs in the background once started and stops cleanly', async () => {
    const { token } = await signUp(t());
    const worker = createKnowledgeWorker(t().deps, { pollMs: 20 });
    worker.start();
    try {
      const res = await upload(t(), token, { name: 'Live', files: [{ name: 'hours.pdf', bytes: PDF }] });
      const id = res.body.data.knowledge_base.knowledge_base_id as string;
      await expect
        .poll(async () => (await call(t(), 'GET', `/knowledge-base/${id}`, { token })).body.data.knowledge_base.status, {
          timeout: 10_000,
        })
        .toBe('complete');
    } finally {
      await worker.stop();
    }
  });

  it('keeps companies apart, pages the list and deletes a base with its files', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      t().clock.advance(1000);
      const res = await upload(t(), a.token, { name, files: [{ name: 'x.txt', bytes: name }] });
      ids.push(res.body.data.knowledge_base.knowledge_base_id);
    }
    const page = await call(t(), 'GET', '/knowledge-base?page=2&limit=2', { token: a.token });
    expect(page.body.data.total).toBe(3);
    expect(page.body.data.knowledge_bases.map((k: KnowledgeBase) => k.knowledge_base_name)).toEqual(['One']);
    const search = await call(t(), 'GET', '/knowledge-base?search=TW', { token: a.token });
    expect(search.body.data.knowledge_bases.map((k: KnowledgeBase) => k.knowledge_base_name)).toEqual(['Two']);
    expect((await call(t(), 'GET', '/knowledge-base?limit=0', { token: a.token })).status).toBe(400);

    expect((await call(t(), 'GET', '/knowledge-base', { token: b.token })).body.data).toEqual({ knowledge_bases: [], total: 0 });
    const foreign = await call(t(), 'GET', `/knowledge-base/${ids[0]}`, { token: b.token });
    const missing = await call(t(), 'GET', '/knowledge-base/0123456789abcdef01234567', { token: b.token });
    const malformed = await call(t(), 'GET', '/knowledge-base/nope', { token: b.token });
    for (const r of [foreign, missing, malformed])
      expect(r).toEqual({ status: 404, body: { success: false, msg: 'Knowledge base not found' } });
    expect((await call(t(), 'DELETE', `/knowledge-base/${ids[0]}`, { token: b.token })).status).toBe(404);

    const dir = kbDir(t().dataDir, a.companyId, ids[0] as string);
    expect(fs.existsSync(dir)).toBe(true);
    expect((await call(t(), 'DELETE', `/knowledge-base/${ids[0]}`, { token: a.token })).status).toBe(200);
    expect(fs.existsSync(dir)).toBe(false);
    expect((await call(t(), 'GET', `/knowledge-base/${ids[0]}`, { token: a.token })).status).toBe(404);
    expect(await stored(t())).toMatchObject({ bases: 2, jobs: 2 });
  });
});
