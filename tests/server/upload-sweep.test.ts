import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { newBatchRow } from '../../server/modules/batches/batch-call.repo.js';
import { recipientUploads } from '../../server/modules/batches/uploads.js';
import { kbDir } from '../../server/modules/knowledge/kb.repo.js';
import { newId } from '../../server/platform/crypto/ids.js';
import { migrations } from '../../server/platform/db/migrations/index.js';
import {
  beginUpload,
  startUploadSweeper,
  sweepExpiredUploads,
  sweepOrphanFiles,
  UPLOAD_LEASE_MS,
  UPLOAD_LOST_MESSAGE,
} from '../../server/platform/uploads/pending-uploads.js';
import { uploadsDir } from '../../server/platform/uploads/uploads.js';
import { signUp, TINY_PNG } from './auth-helpers.js';
import { describeEachDb, freshDatabase, type TestApp, useTestApp } from './helpers.js';
import { type Body, call, insertNumber } from './seed.js';

/**
 * What a request killed half-way through an upload leaves, and the sweep that removes it (
 * server/platform/uploads/pending-uploads.ts): recipient rows of a list no batch holds, knowledge-base
 * directories without their row, photo files without theirs. The crash states are made here as a kill
 * leaves them (rows and files written, the lease never ended); tests/server/crash.test.ts kills a real
 * server in the middle of uploads.
 */

const FROM = '+14155550101';
let keys = 0;
const phones = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);
const csv = (n: number, from = 0) => ['phone_number', ...phones(n, from)].join('\n');

async function batchWithList(t: TestApp, token: string, n: number): Promise<Body> {
  const created = await call(t, 'POST', '/batch-call', {
    token,
    body: { name: 'Live', fromNumber: FROM, sendMode: 'now' },
    headers: { 'Idempotency-Key': `sweep-${++keys}` },
  });
  expect(created.status).toBe(201);
  const up = await call(t, 'POST', `/batch-call/${created.body.batch._id}/recipients`, {
    token,
    body: csv(n),
    headers: { 'Content-Type': 'text/csv' },
  });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  return up.body.batch;
}

/** Recipient rows per upload id. */
async function rowsByUpload(t: TestApp): Promise<Map<string, number>> {
  const rows = await t.deps.db.db
    .selectFrom('batch_recipients')
    .select(['upload_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('upload_id')
    .execute();
  return new Map(rows.map((r) => [r.upload_id, Number(r.n)]));
}

/** Rows of an interrupted upload, as the ingest writes them, under a lease nobody renews any more. */
async function interruptedUpload(t: TestApp, batch: Body, companyId: string, n: number): Promise<string> {
  const uploadId = newId(t.clock.now());
  await beginUpload(t.deps, 'recipients', uploadId, companyId);
  await t.deps.db.db
    .insertInto('batch_recipients')
    .values(
      phones(n, 5000).map((phone, i) => ({
        batch_id: batch._id,
        company_id: companyId,
        upload_id: uploadId,
        row_number: i + 2,
        phone_number: phone,
        variables: '{}',
      })),
    )
    .execute();
  return uploadId;
}

const pendingRows = (t: TestApp) => t.deps.db.db.selectFrom('pending_uploads').selectAll().execute();

describeEachDb('upload sweep', (kind) => {
  const t = useTestApp(kind);

  it('uploads that finish or are refused leave no lease and no rows of other lists', async () => {
    const a = await signUp(t(), { file: new Blob([TINY_PNG], { type: 'image/png' }) });
    await insertNumber(t(), a.companyId, FROM);
    const batch = await batchWithList(t(), a.token, 30);
    // a re-upload replaces the list: the old rows go
    const again = await call(t(), 'POST', `/batch-call/${batch._id}/recipients`, {
      token: a.token,
      body: csv(10, 100),
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(again.status).toBe(200);
    // a refused one (unreadable) leaves nothing
    const bad = await call(t(), 'POST', `/batch-call/${batch._id}/recipients`, {
      token: a.token,
      body: 'phone_number\n"+14155550000\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(bad.status).toBe(400);
    const kb = new FormData();
    kb.set('knowledge_base_name', 'FAQ');
    kb.append('knowledge_base_files', new Blob(['# FAQ'], { type: 'text/markdown' }), 'faq.md');
    expect((await call(t(), 'POST', '/knowledge-base', { token: a.token, body: kb })).status).toBe(201);
    const badKb = new FormData();
    badKb.set('knowledge_base_name', 'Bad');
    badKb.append('knowledge_base_files', new Blob(['not a pdf'], { type: 'application/pdf' }), 'x.pdf');
    expect((await call(t(), 'POST', '/knowledge-base', { token: a.token, body: badKb })).status).toBe(400);

    expect(await pendingRows(t())).toEqual([]);
    expect([...(await rowsByUpload(t())).values()]).toEqual([10]);
  });

  it('removes the rows of an upload whose request died, once its lease ran out, and nothing of the live list', async () => {
    const a = await signUp(t());
    await insertNumber(t(), a.companyId, FROM);
    const batch = await batchWithList(t(), a.token, 40);
    const liveUpload = [...(await rowsByUpload(t())).keys()][0];
    const dead = await interruptedUpload(t(), batch, a.companyId, 1200);
    expect((await rowsByUpload(t())).get(dead)).toBe(1200);

    // a lease still running is an upload in progress (perhaps on another instance): left alone
    expect(await sweepExpiredUploads(t().deps)).toBe(0);
    expect((await rowsByUpload(t())).get(dead)).toBe(1200);

    t().clock.advance(UPLOAD_LEASE_MS + 1);
    expect(await sweepExpiredUploads(t().deps)).toBe(1);
    expect(await rowsByUpload(t())).toEqual(new Map([[liveUpload, 40]]));
    expect(await pendingRows(t())).toEqual([]);
    const read = await call(t(), 'GET', `/batch-call/${batch._id}/recipients?limit=100`, { token: a.token });
    expect(read.body.data.total).toBe(40);
    expect(read.body.data.recipients).toHaveLength(40);
  });

  it('a request slower than its lease finds its upload swept: 409, and nothing of it stays', async () => {
    const a = await signUp(t());
    await insertNumber(t(), a.companyId, FROM);
    const batch = await batchWithList(t(), a.token, 5);
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    let pulled = 0;
    // a body that sends 600 rows (one insert chunk) and then stalls until told
    const body = new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        if (pulled === 0) ctrl.enqueue(new TextEncoder().encode(`${csv(600, 2000)}\n`));
        else if (pulled === 1) await stalled;
        else ctrl.close();
        pulled++;
      },
    });
    const req = new Request(`http://parley.test/api/v1/batch-call/${batch._id}/recipients`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.token}`, 'Content-Type': 'text/csv' },
      body,
      duplex: 'half',
    } as RequestInit);
    const answer = Promise.resolve(t().app.request(req, undefined, { incoming: { socket: { remoteAddress: '127.0.0.1' } } }));
    while ((await rowsByUpload(t())).size < 2) await new Promise((r) => setTimeout(r, 10));
    t().clock.advance(UPLOAD_LEASE_MS + 1);
    expect(await sweepExpiredUploads(t().deps)).toBe(1);
    release();
    const res = await answer;
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ success: false, msg: UPLOAD_LOST_MESSAGE });
    expect([...(await rowsByUpload(t())).values()]).toEqual([5]);
    expect(await pendingRows(t())).toEqual([]);
  });

  it('at start removes knowledge-base directories and uploaded files no row and no lease claims', async () => {
    const a = await signUp(t(), { file: new Blob([TINY_PNG], { type: 'image/png' }) });
    const kb = new FormData();
    kb.set('knowledge_base_name', 'FAQ');
    kb.append('knowledge_base_files', new Blob(['# FAQ'], { type: 'text/markdown' }), 'faq.md');
    const created = await call(t(), 'POST', '/knowledge-base', { token: a.token, body: kb });
    const liveKb = created.body.data.knowledge_base.knowledge_base_id as string;
    const liveDir = kbDir(t().dataDir, a.companyId, liveKb);
    const livePhoto = fs.readdirSync(uploadsDir(t().dataDir));
    expect(livePhoto).toHaveLength(1);

    const write = (file: string, text = 'x') => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    };
    // killed uploads: a directory with a half-written file, a photo written before its account committed
    const orphanDir = kbDir(t().dataDir, a.companyId, newId());
    write(path.join(orphanDir, '0.md'), '# half');
    const orphanPhoto = path.join(uploadsDir(t().dataDir), 'AAAAAAAAAAAAAAAAAAAAAAAA.png');
    write(orphanPhoto);
    // an upload in progress (its lease is live): left alone
    const inProgress = newId();
    await beginUpload(t().deps, 'knowledge-base', inProgress, a.companyId);
    write(path.join(kbDir(t().dataDir, a.companyId, inProgress), '0.md'));
    // a dead upload whose lease ran out: removed by the lease sweep
    const deadId = newId();
    await beginUpload(t().deps, 'knowledge-base', deadId, a.companyId);
    write(path.join(kbDir(t().dataDir, a.companyId, deadId), '0.md'));
    const deadPhoto = 'BBBBBBBBBBBBBBBBBBBBBBBB.jpg';
    await beginUpload(t().deps, 'photo', deadPhoto, null);
    write(path.join(uploadsDir(t().dataDir), deadPhoto));
    t().clock.advance(UPLOAD_LEASE_MS + 1);
    // the request in progress renewed its lease meanwhile
    await t()
      .deps.db.db.updateTable('pending_uploads')
      .set({ lease_until: new Date(t().clock.now().getTime() + UPLOAD_LEASE_MS).toISOString() })
      .where('id', '=', inProgress)
      .execute();

    const sweeper = startUploadSweeper(t().deps);
    await sweeper.idle();
    await sweeper.stop();
    expect(fs.existsSync(orphanDir)).toBe(false);
    expect(fs.existsSync(orphanPhoto)).toBe(false);
    expect(fs.existsSync(kbDir(t().dataDir, a.companyId, deadId))).toBe(false);
    expect(fs.existsSync(path.join(uploadsDir(t().dataDir), deadPhoto))).toBe(false);
    expect(fs.existsSync(kbDir(t().dataDir, a.companyId, inProgress))).toBe(true);
    // live data untouched
    expect(fs.readdirSync(liveDir)).toEqual(['0.md']);
    expect(fs.readdirSync(uploadsDir(t().dataDir))).toEqual(livePhoto);
    const me = await call(t(), 'GET', '/account/me', { token: a.token });
    const photo = await t().req('GET', me.body.account.photoUrl);
    expect(photo.status).toBe(200);
    expect((await pendingRows(t())).map((r) => r.id)).toEqual([inProgress]);
    expect(await sweepOrphanFiles(t().deps)).toEqual({ directories: 0, files: 0 });
  });
});

/** The columns migrations 013 and 015 added to batch_calls. */
const LATER_COLUMNS = [
  'max_attempts',
  'retry_delay_s',
  'calling_window',
  'time_zone',
  'paused_reason',
  'resumed_at',
  'all_failed',
];

function withoutLaterColumns<T extends Record<string, unknown>>(row: T) {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !LATER_COLUMNS.includes(k))) as Omit<
    T,
    'max_attempts' | 'retry_delay_s' | 'calling_window' | 'time_zone' | 'paused_reason' | 'resumed_at' | 'all_failed'
  >;
}

describeEachDb('migration 010 (pending uploads)', (kind) => {
  it('marks the recipient rows earlier crashes left, so the first sweep removes them and only them', async () => {
    const db = await freshDatabase(kind, { migrate: false });
    try {
      const names = Object.keys(migrations).sort();
      for (const name of names.slice(0, names.indexOf('010_pending_uploads'))) await migrations[name]!.up(db.db);
      const now = new Date().toISOString();
      await db.db.insertInto('companies').values({ id: 'c1', name: 'Acme', created_at: now }).execute();
      // a batch row as migration 009 knew it: the dialling rules of migrations 013 and 015 and 021's all_failed do not exist yet
      const batch = (id: string, upload: string | null) => ({
        ...withoutLaterColumns(
          newBatchRow({
            id,
            companyId: 'c1',
            name: id,
            fromNumber: FROM,
            sendMode: 'now',
            scheduledAt: null,
            status: 'draft',
            idempotencyKey: id,
            requestHash: id,
            now: new Date(),
          }),
        ),
        upload_id: upload,
      });
      await db.db
        .insertInto('batch_calls')
        .values([batch('b1', 'live'), batch('b2', null)])
        .execute();
      const rows = (batchId: string, upload: string, n: number) =>
        phones(n).map((phone, i) => ({
          batch_id: batchId,
          company_id: 'c1',
          upload_id: upload,
          row_number: i + 2,
          phone_number: phone,
          variables: '{}',
        }));
      await db.db
        .insertInto('batch_recipients')
        .values([...rows('b1', 'live', 20), ...rows('b1', 'killed', 30), ...rows('b2', 'killed-too', 7)])
        .execute();
      await migrations['010_pending_uploads']!.up(db.db);
      const marked = await db.db.selectFrom('pending_uploads').select(['id', 'kind', 'company_id']).orderBy('id').execute();
      expect(marked).toEqual([
        { id: 'killed', kind: 'recipients', company_id: 'c1' },
        { id: 'killed-too', kind: 'recipients', company_id: 'c1' },
      ]);
      const deps = {
        db,
        clock: { now: () => new Date() },
        config: { dataDir: '/nonexistent', publicUrl: '' },
        uploads: { recipients: recipientUploads },
      };
      expect(await sweepExpiredUploads(deps as never)).toBe(2);
      const left = await db.db.selectFrom('batch_recipients').select('upload_id').distinct().execute();
      expect(left).toEqual([{ upload_id: 'live' }]);
    } finally {
      await db.close();
    }
  });
});
