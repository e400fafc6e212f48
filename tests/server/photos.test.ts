import fs from 'node:fs';
import path from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { expect, it } from 'vitest';
import { PhotoError, reencodePhoto } from '../../server/platform/uploads/photos.js';
import { ACCOUNT_MESSAGES as M } from '../../src/api/contract/account.js';
import {
  jpegBomb,
  jpegWithComment,
  pngBomb,
  pngWithText,
  REAL_WEBP,
  realJpeg,
  realPng,
  webpBomb,
  webpWithChunk,
} from '../fixtures/images.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { type Body, call } from './seed.js';

/**
 * Profile photos: the server decodes each photo and stores only its pixels encoded again, in a
 * worker thread with limits (server/platform/uploads/photos.ts). Polyglots whose page hides in metadata, an extra
 * chunk or after the image are stored without it; pixel bombs are refused before any pixel is allocated.
 */

async function register(t: TestApp, bytes: Buffer, name: string) {
  const form = new FormData();
  form.set('name', 'Photo Tester');
  form.set('email', `photo-${Math.random().toString(36).slice(2)}@example.com`);
  form.set('password', 'correct horse battery staple');
  form.set('file', new Blob([new Uint8Array(bytes)]), name);
  const res = await t.req('POST', '/api/v1/account/register', { body: form });
  return { status: res.status, body: (await res.json()) as Body };
}

/** The bytes stored for the account of `token`, read back through GET /files. */
async function storedPhoto(t: TestApp, token: string): Promise<{ bytes: Buffer; type: string }> {
  const me = await call(t, 'GET', '/account/me', { token });
  const res = await t.req('GET', me.body.account.photoUrl);
  expect(res.status).toBe(200);
  return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') ?? '' };
}

const uploadsIn = (t: TestApp) => {
  const dir = path.join(t.dataDir, 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describeEachDb('photos', (kind) => {
  const t = useTestApp(kind);

  it('stores the polyglots of the attack without their page: <video onerror>, <details ontoggle>, <x:script>', async () => {
    const cases: [string, Buffer, string, string][] = [
      ['PNG, tEXt chunk', pngWithText(realPng(), '<video src=x onerror=alert(1)>'), 'a.png', 'image/png'],
      ['PNG, after IEND', Buffer.concat([realPng(), Buffer.from('<details open ontoggle=alert(1)>')]), 'b.png', 'image/png'],
      ['JPEG, comment', jpegWithComment(realJpeg(), '<details open ontoggle=alert(1)>'), 'c.jpg', 'image/jpeg'],
      ['JPEG, after EOI', Buffer.concat([realJpeg(), Buffer.from('<video src=x onerror=alert(1)>')]), 'd.jpg', 'image/jpeg'],
      [
        'WEBP, extra chunk',
        webpWithChunk(REAL_WEBP, 'XMP ', '<x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>'),
        'e.webp',
        'image/webp',
      ],
    ];
    for (const [what, bytes, name, type] of cases) {
      const res = await register(t(), bytes, name);
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(201);
      const stored = await storedPhoto(t(), res.body.token);
      expect(stored.type, what).toBe(type);
      const text = stored.bytes.toString('latin1');
      for (const payload of ['<video', '<details', '<x:script', 'onerror', 'ontoggle', 'alert(1)'])
        expect(text.includes(payload), `${what} still holds ${payload}`).toBe(false);
      // not the upload: a file the server encoded
      expect(stored.bytes.equals(bytes), what).toBe(false);
    }
  });

  it('keeps the pixels of valid JPEG, PNG and WEBP photos (encoded again, same size and type)', async () => {
    const png = realPng(40, 30);
    const a = await signUp(t(), { file: new Blob([new Uint8Array(png)]), fileName: 'me.png' });
    const storedPng = await storedPhoto(t(), a.token);
    expect(storedPng.type).toBe('image/png');
    const decoded = PNG.sync.read(storedPng.bytes);
    expect([decoded.width, decoded.height]).toEqual([40, 30]);
    // PNG is lossless: the very same pixels
    expect(decoded.data.equals(PNG.sync.read(png).data)).toBe(true);

    const jpg = realJpeg(48, 32);
    const b = await signUp(t(), { file: new Blob([new Uint8Array(jpg)]), fileName: 'me.jpg' });
    const storedJpg = await storedPhoto(t(), b.token);
    expect(storedJpg.type).toBe('image/jpeg');
    const dj = jpeg.decode(storedJpg.bytes, { useTArray: true });
    expect([dj.width, dj.height]).toEqual([48, 32]);

    const c = await signUp(t(), { file: new Blob([new Uint8Array(REAL_WEBP)]), fileName: 'me.webp' });
    const storedWebp = await storedPhoto(t(), c.token);
    expect(storedWebp.type).toBe('image/webp');
    expect(storedWebp.bytes.toString('latin1', 8, 12)).toBe('WEBP');
    const rows = await t().deps.db.db.selectFrom('files').select(['size', 'mime_type']).execute();
    expect(rows.map((r) => r.mime_type).sort()).toEqual(['image/jpeg', 'image/png', 'image/webp']);
  });

  it('refuses pixel bombs with a clear 400, before decoding, and stores nothing', async () => {
    for (const [what, bytes, name] of [
      ['PNG 20000 x 20000', pngBomb(20_000, 20_000), 'bomb.png'],
      ['PNG 5000 x 5000 (25 MP)', pngBomb(5000, 5000), 'wide.png'],
      ['JPEG 30000 x 30000', jpegBomb(30_000, 30_000), 'bomb.jpg'],
      ['WEBP canvas 16000 x 16000', webpBomb(16_000, 16_000), 'bomb.webp'],
    ] as const) {
      const res = await register(t(), bytes, name);
      expect(res.status, what).toBe(400);
      expect(res.body, what).toMatchObject({
        success: false,
        msg: M.photoTooManyPixels,
        errors: { file: M.photoTooManyPixels },
      });
    }
    expect(await t().deps.db.db.selectFrom('accounts').select('id').execute()).toEqual([]);
    expect(uploadsIn(t())).toEqual([]);
  });

  it('refuses bytes that only look like an image: the magic number with no image after it', async () => {
    for (const [what, bytes, name] of [
      ['PNG signature and HTML', Buffer.concat([realPng().subarray(0, 8), Buffer.from('<html><script>1</script>')]), 'x.png'],
      ['JPEG start and a comment', jpegWithComment(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), '<script>1</script>'), 'x.jpg'],
      ['WEBP header and an iframe', Buffer.from('RIFF\x04\0\0\0WEBPVP8 <iframe src="//evil"></iframe>', 'latin1'), 'x.webp'],
    ] as const) {
      const res = await register(t(), bytes, name);
      expect(res.status, what).toBe(400);
      expect(res.body, what).toMatchObject({ msg: M.photoType, errors: { file: M.photoType } });
    }
    expect(uploadsIn(t())).toEqual([]);
  });
});

it('a photo that takes longer than its time limit is refused and its worker ended', async () => {
  await expect(reencodePhoto(realJpeg(512, 512), 'image/jpeg', { timeLimitMs: 1 })).rejects.toEqual(
    new PhotoError('too-complex'),
  );
  // the next one runs normally
  expect((await reencodePhoto(realPng(4, 4), 'image/png')).length).toBeGreaterThan(0);
});
