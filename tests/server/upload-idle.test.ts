import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { afterEach, expect, it } from 'vitest';
import { UPLOAD_STALLED_MSG } from '../../server/platform/uploads/upload-idle.js';
import { type SignedUp, STRONG_PASSWORD, signUp, TINY_PNG } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { insertNumber } from './seed.js';

/**
 * An upload that stops sending was held for Node's 300 s request timeout. The three streamed
 * uploads (sign-up with its photo, knowledge base, batch recipients) now answer 408 once the client has
 * sent nothing for AppConfig.uploadIdleMs (30 s in production, 300 ms here), over a real socket, and
 * keep nothing of what arrived.
 */

const IDLE_MS = 300;
let server: ServerType | undefined;

afterEach(async () => {
  (server as http.Server | undefined)?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(t: TestApp, idleMs = IDLE_MS): Promise<number> {
  t.deps.config.uploadIdleMs = idleMs;
  return new Promise((resolve) => {
    server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
}

/**
 * Sends the headers and `head` of a body announced as `declared` bytes, then nothing more, and answers
 * the server's status and body (the socket stays open on our side).
 */
function stalledPost(
  port: number,
  url: string,
  headers: Record<string, string>,
  head: Buffer,
  declared: number,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: url, method: 'POST', headers: { ...headers, 'Content-Length': String(declared) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        });
      },
    );
    req.on('error', reject);
    req.write(head);
  });
}

const BOUNDARY = '----parley-stall';
function multipartHead(fields: Record<string, string>, file: { field: string; name: string; type: string; bytes: Buffer }) {
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  return Buffer.concat([
    Buffer.from(parts.join('')),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
    ),
    file.bytes,
  ]);
}
const multipart = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` };

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [e.name]))
    : [];

describeEachDb('stalled uploads', (kind) => {
  const t = useTestApp(kind);

  it('a sign-up whose photo stops arriving answers 408 and creates nothing', async () => {
    const port = await listen(t());
    const head = multipartHead(
      { name: 'Slow Sender', email: 'slow@example.com', password: STRONG_PASSWORD },
      { field: 'file', name: 'me.png', type: 'image/png', bytes: Buffer.from(TINY_PNG) },
    );
    const res = await stalledPost(port, '/api/v1/account/register', multipart, head, head.length + 100_000);
    expect(res).toEqual({ status: 408, body: { success: false, msg: UPLOAD_STALLED_MSG } });
    expect(await t().deps.db.db.selectFrom('accounts').select('id').execute()).toEqual([]);
    expect(filesUnder(path.join(t().dataDir, 'uploads'))).toEqual([]);
  });

  it('a knowledge-base upload that stops answers 408 and its files are removed', async () => {
    const s = await signUp(t());
    const port = await listen(t());
    const head = multipartHead(
      { knowledge_base_name: 'Stalled' },
      {
        field: 'knowledge_base_files',
        name: 'notes.txt',
        type: 'text/plain',
        bytes: Buffer.from('We open at ten.\n'.repeat(4000)),
      },
    );
    const res = await stalledPost(
      port,
      '/api/v1/knowledge-base',
      { ...multipart, Authorization: `Bearer ${s.token}` },
      head,
      head.length + 1_000_000,
    );
    expect(res).toEqual({ status: 408, body: { success: false, msg: UPLOAD_STALLED_MSG } });
    expect(await t().deps.db.db.selectFrom('knowledge_bases').select('id').execute()).toEqual([]);
    expect(filesUnder(path.join(t().dataDir, 'knowledge-base'))).toEqual([]);
  });

  it('a recipients upload that stops answers 408 and the rows it wrote are removed', async () => {
    const s: SignedUp = await signUp(t());
    const phone = '+14155550123';
    await insertNumber(t(), s.companyId, phone);
    const created = await t().req('POST', '/api/v1/batch-call', {
      token: s.token,
      body: { name: 'Reminders', fromNumber: phone, sendMode: 'now' },
      headers: { 'Idempotency-Key': 'stall-1' },
    });
    const batchId = ((await created.json()) as { batch: { _id: string } }).batch._id;
    const port = await listen(t());
    // more rows than one insert holds (500), so some reach the database before the stall
    const rows = Array.from({ length: 1200 }, (_, i) => `+1415555${String(1000 + i).padStart(4, '0')}`);
    const head = Buffer.from(`phone_number\n${rows.join('\n')}\n`);
    const res = await stalledPost(
      port,
      `/api/v1/batch-call/${batchId}/recipients`,
      { 'Content-Type': 'text/csv', Authorization: `Bearer ${s.token}` },
      head,
      head.length + 1_000_000,
    );
    expect(res).toEqual({ status: 408, body: { success: false, msg: UPLOAD_STALLED_MSG } });
    expect(
      await t().deps.db.db.selectFrom('batch_recipients').select('row_number').where('batch_id', '=', batchId).execute(),
    ).toEqual([]);
  });

  it('an upload that keeps sending, however slowly, is not cut', async () => {
    const s = await signUp(t());
    // a generous idle time here, so a busy machine cannot make the steady sender look stalled
    const idleMs = 1500;
    const bytes = 25;
    const port = await listen(t(), idleMs);
    const text = Buffer.from('Slow but steady.\n');
    const head = multipartHead(
      { knowledge_base_name: 'Steady' },
      { field: 'knowledge_base_files', name: 'a.txt', type: 'text/plain', bytes: text },
    );
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/api/v1/knowledge-base',
          method: 'POST',
          headers: {
            ...multipart,
            Authorization: `Bearer ${s.token}`,
            'Content-Length': String(head.length + bytes + tail.length),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.write(head);
      // one more byte every 100 ms: the whole upload takes longer than the idle time
      let sent = 0;
      const tick = setInterval(() => {
        if (sent < bytes) {
          req.write('x');
          sent++;
        } else {
          clearInterval(tick);
          req.end(tail);
        }
      }, 100);
    });
    expect(status).toBe(201);
  });
});
