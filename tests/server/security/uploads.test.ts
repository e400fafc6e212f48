import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FILE_NAME } from '../../../server/platform/uploads/uploads.js';
import { ACCOUNT_MESSAGES as M } from '../../../src/api/contract/account.js';
import { BATCH_CSV_MAX_BYTES, BATCH_MESSAGES } from '../../../src/api/contract/batch.js';
import { KB_FILE_MAX_BYTES } from '../../../src/api/contract/knowledge-base.js';
import { jpegWithComment, pngWithText, realJpeg } from '../../fixtures/images.js';
import { signUp, TINY_PNG } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { type Body, call, insertNumber } from '../seed.js';

/**
 * Uploads: oversized bodies answer 413 while streaming (the body comes from a generator that
 * counts what the server pulled and looks at the database while the rest is unsent), photos are images by their bytes and
 * never markup (HTML named .png, SVG, image headers with a page after them; an image with a page inside is
 * stored as the server's own encoding of its pixels), and stored files are served inert under names the
 * server made.
 */

const MB = 1024 * 1024;

/**
 * A pull-based body of `total` bytes: `head`, then `fill` bytes, then `tail`. Counts what the server pulled;
 * `probe` runs (awaited) once when the count first passes `probeAt`, while the rest is still unsent.
 */
function generatedBody(
  total: number,
  head: Uint8Array,
  fill: number,
  tail = new Uint8Array(0),
  probe?: { at: number; run: () => Promise<void> },
) {
  const chunk = new Uint8Array(64 * 1024).fill(fill);
  const state = { produced: 0, done: false, probed: false };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        if (probe && !state.probed && state.produced >= probe.at) {
          state.probed = true;
          await probe.run();
        }
        const left = total - state.produced;
        if (left <= 0) {
          state.done = true;
          return ctrl.close();
        }
        let part: Uint8Array;
        if (state.produced === 0) part = head;
        else if (left <= tail.length) part = tail.subarray(tail.length - left);
        else part = chunk.subarray(0, Math.min(chunk.length, left - tail.length));
        state.produced += part.byteLength;
        // a fresh copy each time, as a socket hands over fresh buffers
        ctrl.enqueue(part.slice());
      },
    },
    { highWaterMark: 0 },
  );
  return { body, state };
}

async function rawPost(t: TestApp, url: string, token: string, body: ReadableStream<Uint8Array>, contentType: string) {
  const req = new Request(`http://parley.test/api/v1${url}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType },
    body,
    duplex: 'half',
  } as RequestInit);
  const res = await t.app.request(req, undefined, { incoming: { socket: { remoteAddress: '127.0.0.1' } } });
  return { status: res.status, body: (await res.json()) as Body };
}

const register = (t: TestApp, blob: Blob, name: string) => {
  const form = new FormData();
  form.set('name', 'Mallory');
  form.set('email', `mallory-${Math.random().toString(36).slice(2)}@example.com`);
  form.set('password', 'a long enough passphrase');
  form.set('file', blob, name);
  return call(t, 'POST', '/account/register', { body: form });
};

const filesIn = (dir: string) =>
  fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];

/** A JPEG: SOI, a COM segment with `comment`, EOI. */
describeEachDb('security: uploads', (kind) => {
  const t = useTestApp(kind);

  it('answers 413 to a streamed 50 MB + 1 byte recipients CSV, parsed as it streams, storing nothing', async () => {
    const user = await signUp(t());
    await insertNumber(t(), user.companyId, '+14155550101');
    const created = await call(t(), 'POST', '/batch-call', {
      token: user.token,
      body: { name: 'Big', fromNumber: '+14155550101', sendMode: 'now' },
      headers: { 'Idempotency-Key': 'big-upload' },
    });
    expect(created.status).toBe(201);
    // 15,000 valid rows, then blank lines (dropped cheaply by the parser) up to exactly 50 MB + 1 byte, no
    // Content-Length. Halfway, the rows must already be in the database: the body is parsed as it arrives,
    // not buffered first.
    const rows = Array.from({ length: 15_000 }, (_, i) => `+1415${5550000 + i}`).join('\n');
    const db = t().deps.db.db;
    let storedWhileStreaming = -1;
    const { body, state } = generatedBody(
      BATCH_CSV_MAX_BYTES + 1,
      new TextEncoder().encode(`phone_number\n${rows}\n`),
      0x0a,
      undefined,
      {
        at: 25 * MB,
        run: async () => {
          storedWhileStreaming = (await db.selectFrom('batch_recipients').select('row_number').execute()).length;
        },
      },
    );
    const res = await rawPost(t(), `/batch-call/${created.body.batch._id}/recipients`, user.token, body, 'text/csv');
    expect(res).toEqual({ status: 413, body: { success: false, msg: BATCH_MESSAGES.tooLarge } });
    expect(state.produced).toBe(BATCH_CSV_MAX_BYTES + 1);
    expect(storedWhileStreaming).toBe(15_000);
    // refused: the rows written while streaming are gone
    expect(await db.selectFrom('batch_recipients').select('row_number').execute()).toEqual([]);
  }, 120_000);

  it('answers 413 to a knowledge-base file of 10 MB + 1 byte as it streams, without reading the rest', async () => {
    const user = await signUp(t());
    const boundary = 'sec-suite-boundary';
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="knowledge_base_name"\r\n\r\nBig\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="big.txt"\r\n` +
        'Content-Type: text/plain\r\n\r\n',
    );
    const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
    // the file goes on for 30 MB: the server must stop at its 10 MB + 1st byte
    const total = head.length + 30 * MB + tail.length;
    const { body, state } = generatedBody(total, head, 0x61, tail);
    const res = await rawPost(t(), '/knowledge-base', user.token, body, `multipart/form-data; boundary=${boundary}`);
    expect(res).toEqual({ status: 413, body: { success: false, msg: 'big.txt is larger than 10 MB' } });
    expect(state.produced).toBeGreaterThan(KB_FILE_MAX_BYTES);
    expect(state.produced).toBeLessThan(KB_FILE_MAX_BYTES + 2 * MB);
    expect(state.done).toBe(false);
    expect(await t().deps.db.db.selectFrom('knowledge_bases').select('id').execute()).toEqual([]);
    expect(filesIn(path.join(t().dataDir, 'knowledge-base'))).toEqual([]);
  }, 120_000);

  it('refuses markup as a photo (HTML named .png, SVG, headers with a page after them) and stores images without the page inside', async () => {
    const page = '<html><body><script>window.__xss=1</script></body></html>';
    const refused: [string, Blob, string][] = [
      ['HTML named .png', new Blob([page], { type: 'image/png' }), 'avatar.png'],
      [
        'SVG with a script',
        new Blob(['<svg xmlns="http://www.w3.org/2000/svg" onload="window.__xss=1"><circle r="4"/></svg>'], {
          type: 'image/svg+xml',
        }),
        'avatar.svg',
      ],
      [
        'SVG with an XML prolog',
        new Blob(['<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>']),
        'a.svg',
      ],
      ['PNG signature followed by HTML', new Blob([Buffer.concat([TINY_PNG.subarray(0, 8), Buffer.from(page)])]), 'polyglot.png'],
      [
        'JPEG markers around HTML',
        new Blob([new Uint8Array(jpegWithComment(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), page))]),
        'photo.jpg',
      ],
      [
        'WEBP header followed by an iframe',
        new Blob([Buffer.concat([Buffer.from('RIFF\x04\0\0\0WEBPVP8 '), Buffer.from('<iframe src="//evil"></iframe>')])]),
        'w.webp',
      ],
      ['GIF with a script', new Blob([Buffer.concat([Buffer.from('GIF89a'), Buffer.from(page)])]), 'g.gif'],
    ];
    for (const [what, blob, name] of refused) {
      const res = await register(t(), blob, name);
      expect(res.status, what).toBe(400);
      expect(res.body, what).toMatchObject({ success: false, msg: M.photoType, errors: { file: M.photoType } });
    }
    expect(await t().deps.db.db.selectFrom('accounts').select('id').execute()).toEqual([]);
    expect(filesIn(path.join(t().dataDir, 'uploads'))).toEqual([]);
    // real images with a page inside are stored as the server's own encoding of their pixels: no page
    const hidden: [string, Buffer, string][] = [
      ['PNG followed by HTML', Buffer.concat([TINY_PNG, Buffer.from(page)]), 'after.png'],
      ['PNG with HTML in a tEXt chunk', pngWithText(TINY_PNG, '<img src=x onerror=window.__xss=1>'), 'chunk.png'],
      ['JPEG with HTML in a comment', jpegWithComment(realJpeg(), page), 'photo.jpg'],
      ['JPEG with a javascript: URL', jpegWithComment(realJpeg(), '<a href="javascript:alert(1)">x</a>'), 'p.jpg'],
    ];
    for (const [what, bytes, name] of hidden) {
      const res = await register(t(), new Blob([new Uint8Array(bytes)]), name);
      expect(res.status, what).toBe(201);
    }
    const stored = filesIn(path.join(t().dataDir, 'uploads'));
    expect(stored).toHaveLength(hidden.length);
    for (const f of stored) {
      const text = fs.readFileSync(path.join(f.parentPath, f.name)).toString('latin1');
      for (const needle of ['<html', '<script', '<img', 'javascript:', '__xss']) expect(text, f.name).not.toContain(needle);
    }
  });

  it('serves stored photos inert, under server-made names, whatever the client called them', async () => {
    const jpeg = jpegWithComment(realJpeg(), 'plain comment');
    const clientName = '"><script>alert(1)</script>.html';
    const s = await signUp(t(), { file: new Blob([new Uint8Array(jpeg)], { type: 'text/html' }), fileName: clientName });
    const me = await call(t(), 'GET', '/account/me', { token: s.token });
    const url = me.body.account.photoUrl as string;
    const name = url.split('/').pop() as string;
    expect(name).toMatch(FILE_NAME);
    expect(name).toMatch(/\.jpg$/);
    // nothing of the client's name is kept anywhere
    const rows = await t().deps.db.db.selectFrom('files').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('script');
    expect(filesIn(path.join(t().dataDir, 'uploads')).map((e) => e.name)).toEqual([name]);

    for (const method of ['GET', 'HEAD']) {
      const res = await t().req(method, url);
      expect(res.status, method).toBe(200);
      expect(res.headers.get('content-type'), method).toBe('image/jpeg');
      expect(res.headers.get('x-content-type-options'), method).toBe('nosniff');
      expect(res.headers.get('content-disposition'), method).toBe('inline; filename="photo.jpg"');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, method).toContain('sandbox');
      expect(csp, method).toContain("default-src 'none'");
      expect(res.headers.get('cross-origin-resource-policy'), method).toBe('same-origin');
      // the server's own encoding of the photo's pixels, not the upload
      if (method === 'GET') {
        const served = Buffer.from(await res.arrayBuffer());
        expect(served.subarray(0, 2).toString('hex')).toBe('ffd8');
        expect(served.equals(jpeg)).toBe(false);
        expect(served.toString('latin1')).not.toContain('plain comment');
      }
    }
    // the client's name, or any other, does not reach a file
    for (const probe of [
      encodeURIComponent(clientName),
      `${name.slice(0, -4)}.html`,
      `${name.slice(0, -4)}.svg`,
      `..%2F${name}`,
    ]) {
      expect((await t().req('GET', `/api/v1/files/${probe}`)).status, probe).toBe(404);
    }
  });
});
