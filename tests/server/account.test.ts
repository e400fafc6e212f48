import fs from 'node:fs';
import path from 'node:path';
import { hash } from '@node-rs/argon2';
import { PNG } from 'pngjs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { needsRehash } from '../../server/modules/auth/passwords.js';
import {
  LoginBodySchema,
  ACCOUNT_MESSAGES as M,
  MeResponseSchema,
  PHOTO_MAX_BYTES,
  RegisterFormSchema,
} from '../../src/api/contract/account.js';
import { REAL_WEBP, realJpeg } from '../fixtures/images.js';
import { logIn, signUp, TINY_PNG } from './auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from './helpers.js';

type Body = { success: boolean; msg: string; errors?: Record<string, string> } & Record<string, unknown>;
const json = (res: Response) => res.json() as Promise<Body>;

function registerForm(fields: Record<string, string | undefined>, file?: { blob: Blob; name: string }) {
  const form = new FormData();
  for (const [k, val] of Object.entries(fields)) if (val !== undefined) form.set(k, val);
  if (file) form.set('file', file.blob, file.name);
  return form;
}

const register = (t: TestApp, fields: Record<string, string | undefined>, file?: { blob: Blob; name: string }) =>
  t.req('POST', '/api/v1/account/register', { body: registerForm(fields, file) });

const GOOD = { name: 'Ada Lovelace', email: 'Ada@Example.com', password: 'analytical engine 1843' };

/** A request from a given client IP (the socket address the server reads). */
function reqFrom(t: TestApp, ip: string, method: string, url: string, body: unknown) {
  return t.app.request(
    url,
    { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
    { incoming: { socket: { remoteAddress: ip } } },
  );
}

describeEachDb('account API', (kind) => {
  const t = useTestApp(kind);

  describe('register', () => {
    it('creates a company and its first account and answers tokens that work', async () => {
      const res = await register(t(), GOOD);
      expect(res.status).toBe(201);
      const body = await json(res);
      expect(body).toMatchObject({
        success: true,
        msg: M.registered,
        token: expect.any(String),
        refresh_token: expect.any(String),
        account: { _id: expect.stringMatching(/^[0-9a-f]{24}$/), companyId: expect.stringMatching(/^[0-9a-f]{24}$/) },
      });
      const account = body.account as { _id: string; companyId: string };
      const me = await t().req('GET', '/api/v1/account/me', { token: body.token as string });
      expect(me.status).toBe(200);
      const meBody = await me.json();
      expect(v.safeParse(MeResponseSchema, meBody).success).toBe(true);
      expect(meBody).toEqual({
        success: true,
        account: {
          _id: account._id,
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          photoUrl: null,
          companyId: account.companyId,
          company: { _id: account.companyId, name: "Ada Lovelace's company" },
        },
      });
      const row = await t().deps.db.db.selectFrom('accounts').selectAll().executeTakeFirstOrThrow();
      expect(row.email).toBe('ada@example.com');
      expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(row.password_hash).not.toContain(GOOD.password);
    });

    it('refuses a taken email, whatever its case, with 409', async () => {
      await signUp(t(), { email: 'taken@example.com' });
      const res = await register(t(), { ...GOOD, email: 'TAKEN@example.COM' });
      expect(res.status).toBe(409);
      const body = await json(res);
      expect(body).toMatchObject({ success: false, msg: M.emailTaken, errors: { email: M.emailTaken } });
      const count = await t()
        .deps.db.db.selectFrom('accounts')
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1);
    });

    it('two simultaneous sign-ups with one email: one 201, one 409', async () => {
      const [a, b] = await Promise.all([register(t(), GOOD), register(t(), { ...GOOD, email: 'ADA@example.com' })]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      expect(await t().deps.db.db.selectFrom('accounts').select('id').execute()).toHaveLength(1);
      expect(await t().deps.db.db.selectFrom('companies').select('id').execute()).toHaveLength(1);
    });

    it('refuses a common password, whatever its case', async () => {
      for (const password of ['password123', 'Qwerty123', 'iloveyou']) {
        const res = await register(t(), { ...GOOD, password });
        expect(res.status, password).toBe(400);
        expect(await json(res)).toMatchObject({ msg: M.passwordTooCommon, errors: { password: M.passwordTooCommon } });
      }
    });

    it('answers every validation message of the specification', async () => {
      const cases: [Record<string, string | undefined>, Record<string, string>][] = [
        [{}, { name: M.nameRequired, email: M.emailRequired, password: M.passwordRequired }],
        [{ ...GOOD, name: 'A' }, { name: M.nameRequired }],
        [{ ...GOOD, name: '   ' }, { name: M.nameRequired }],
        [{ ...GOOD, email: '' }, { email: M.emailRequired }],
        [{ ...GOOD, email: 'not-an-email' }, { email: M.emailInvalid }],
        [{ ...GOOD, password: '' }, { password: M.passwordRequired }],
        [{ ...GOOD, password: '12345' }, { password: M.passwordTooShort }],
        [{ ...GOOD, password: 'x'.repeat(129) }, { password: M.passwordTooLong }],
      ];
      for (const [fields, errors] of cases) {
        const res = await register(t(), fields);
        expect(res.status, JSON.stringify(fields)).toBe(400);
        const body = await json(res);
        expect(body.success).toBe(false);
        expect(body.errors).toEqual(errors);
      }
      expect(M.passwordTooShort).toBe('Password must be at least 6 characters');
    });

    it('the contract gives the client the same messages, including the photo type', () => {
      const png = new File([TINY_PNG], 'a.png', { type: 'image/png' });
      const gif = new File([new Uint8Array([0x47, 0x49, 0x46])], 'a.gif', { type: 'image/gif' });
      expect(v.safeParse(RegisterFormSchema, { ...GOOD, file: png }).success).toBe(true);
      const bad = v.safeParse(RegisterFormSchema, { ...GOOD, file: gif });
      expect(bad.issues?.[0]?.message).toBe('Only JPG, PNG, or WEBP files are allowed');
      const login = v.safeParse(LoginBodySchema, { email: 'x', password: '1' });
      expect(login.issues?.map((i) => i.message)).toEqual(['Invalid email', 'Password must be at least 6 characters']);
    });

    it('refuses a photo named .png whose bytes are a script, and creates nothing', async () => {
      const script = new Blob(['<script>alert(document.cookie)</script>'], { type: 'image/png' });
      const res = await register(t(), GOOD, { blob: script, name: 'avatar.png' });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ success: false, msg: M.photoType, errors: { file: M.photoType } });
      expect(await t().deps.db.db.selectFrom('accounts').select('id').execute()).toHaveLength(0);
      const uploads = path.join(t().dataDir, 'uploads');
      expect(fs.existsSync(uploads) ? fs.readdirSync(uploads) : []).toEqual([]);
    });

    it('accepts a real PNG (by its bytes, whatever its name) and serves it inert', async () => {
      const blob = new Blob([TINY_PNG], { type: 'text/plain' });
      const s = await signUp(t(), { file: blob, fileName: '../../evil name.txt' });
      const me = (await (await t().req('GET', '/api/v1/account/me', { token: s.token })).json()) as {
        account: { photoUrl: string };
      };
      expect(me.account.photoUrl).toMatch(/^\/api\/v1\/files\/[A-Za-z0-9_-]{24}\.png$/);
      const served = await t().req('GET', me.account.photoUrl);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-disposition')).toBe('inline; filename="photo.png"');
      expect(served.headers.get('content-security-policy')).toContain('sandbox');
      // the server's own encoding of the same pixels (server/platform/uploads/photos.ts), not the upload
      const bytes = Buffer.from(await served.arrayBuffer());
      expect(PNG.sync.read(bytes).data.equals(PNG.sync.read(TINY_PNG).data)).toBe(true);
      const stored = fs.readdirSync(path.join(t().dataDir, 'uploads'));
      expect(stored).toEqual([me.account.photoUrl.split('/').pop()]);
    });

    it('accepts JPEG and WEBP bytes', async () => {
      const a = await signUp(t(), { file: new Blob([new Uint8Array(realJpeg())]), fileName: 'x' });
      const b = await signUp(t(), { file: new Blob([new Uint8Array(REAL_WEBP)]), fileName: 'y' });
      const types = await t().deps.db.db.selectFrom('files').select(['mime_type', 'account_id']).execute();
      expect(types).toEqual(
        expect.arrayContaining([
          { mime_type: 'image/jpeg', account_id: a.accountId },
          { mime_type: 'image/webp', account_id: b.accountId },
        ]),
      );
    });

    it('refuses a photo over 5 MB with 413 (file check and body limit)', async () => {
      const justOver = new Uint8Array(PHOTO_MAX_BYTES + 1);
      justOver.set(TINY_PNG);
      const res = await register(t(), GOOD, { blob: new Blob([justOver]), name: 'big.png' });
      expect(res.status).toBe(413);
      expect(await json(res)).toMatchObject({ success: false, msg: M.photoTooLarge });
      const huge = new Uint8Array(6 * 1024 * 1024);
      huge.set(TINY_PNG);
      const res2 = await register(t(), GOOD, { blob: new Blob([huge]), name: 'huge.png' });
      expect(res2.status).toBe(413);
      expect(await json(res2)).toMatchObject({ success: false, msg: M.photoTooLarge });
      expect(await t().deps.db.db.selectFrom('accounts').select('id').execute()).toHaveLength(0);
    });

    it('GET /files answers 404 for unknown or malformed names', async () => {
      for (const url of [
        '/api/v1/files/AAAAAAAAAAAAAAAAAAAAAAAA.png',
        '/api/v1/files/..%2F..%2Fetc%2Fpasswd',
        '/api/v1/files/x.svg',
      ]) {
        const res = await t().req('GET', url);
        expect(res.status, url).toBe(404);
      }
    });

    it('runs the company.created handlers inside the registration transaction', async () => {
      const seen: string[] = [];
      const ok = async (e: { companyId: string }) => {
        seen.push(e.companyId);
      };
      const failing = async () => {
        throw new Error('hook failed');
      };
      const offOk = t().deps.events.on('company.created', ok);
      let offFailing = () => {};
      try {
        const s = await signUp(t());
        expect(seen).toEqual([s.companyId]);
        offFailing = t().deps.events.on('company.created', failing);
        const res = await register(t(), { ...GOOD, email: 'rolled-back@example.com' });
        expect(res.status).toBe(500);
        const row = await t()
          .deps.db.db.selectFrom('accounts')
          .select('id')
          .where('email', '=', 'rolled-back@example.com')
          .execute();
        expect(row).toHaveLength(0);
        expect(await t().deps.db.db.selectFrom('companies').select('id').execute()).toHaveLength(1);
      } finally {
        offOk();
        offFailing();
      }
    });
  });

  describe('login', () => {
    it('answers the login shape, for any case of the email', async () => {
      const s = await signUp(t(), { email: 'grace@example.com' });
      const { res, body } = await logIn(t(), 'Grace@EXAMPLE.com', s.password);
      expect(res.status).toBe(200);
      expect(body).toEqual({
        success: true,
        msg: M.loginSuccess,
        token: expect.any(String),
        refresh_token: expect.any(String),
        account: { _id: s.accountId, companyId: s.companyId },
      });
      expect((await t().req('GET', '/api/v1/account/me', { token: body.token })).status).toBe(200);
    });

    it('answers wrong email and wrong password identically', async () => {
      const s = await signUp(t());
      const a = await t().req('POST', '/api/v1/account/login', { body: { email: s.email, password: 'wrong password' } });
      const b = await t().req('POST', '/api/v1/account/login', {
        body: { email: 'nobody@example.com', password: 'wrong password' },
      });
      expect(a.status).toBe(401);
      expect(b.status).toBe(401);
      const [ta, tb] = [await a.text(), await b.text()];
      expect(ta).toBe(tb);
      expect(JSON.parse(ta)).toEqual({ success: false, msg: 'Invalid email or password' });
    });

    it('answers the login validation messages', async () => {
      const cases: [Record<string, unknown>, Record<string, string>][] = [
        [{}, { email: M.emailRequired, password: M.passwordRequired }],
        [{ email: 'x', password: 'abcdef' }, { email: M.emailInvalid }],
        [{ email: 'a@b.co', password: 'abc' }, { password: M.passwordTooShort }],
      ];
      for (const [body, errors] of cases) {
        const res = await t().req('POST', '/api/v1/account/login', { body });
        expect(res.status).toBe(400);
        expect((await json(res)).errors).toEqual(errors);
      }
    });

    it('upgrades a hash made with older parameters', async () => {
      const s = await signUp(t());
      const old = await hash(s.password, { memoryCost: 4096, timeCost: 3, parallelism: 1 });
      expect(needsRehash(old)).toBe(true);
      const db = t().deps.db.db;
      await db.updateTable('accounts').set({ password_hash: old }).where('id', '=', s.accountId).execute();
      const { res } = await logIn(t(), s.email, s.password);
      expect(res.status).toBe(200);
      const row = await db.selectFrom('accounts').select('password_hash').where('id', '=', s.accountId).executeTakeFirstOrThrow();
      expect(row.password_hash).not.toBe(old);
      expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(needsRehash(row.password_hash)).toBe(false);
      expect((await logIn(t(), s.email, s.password)).res.status).toBe(200);
    });

    it('allows 5 failures per 15 minutes per IP and email, then 429 with Retry-After', async () => {
      const s = await signUp(t());
      for (let i = 0; i < 5; i++) {
        expect((await logIn(t(), s.email, 'wrong password')).res.status).toBe(401);
      }
      const { res, body } = await logIn(t(), s.email, s.password);
      expect(res.status).toBe(429);
      const retry = Number(res.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(15 * 60);
      expect(body.msg).toBe(`Too many attempts. Please try again in ${Math.ceil(retry / 60)} minutes.`);
      // another IP, or another email from this IP, is not limited
      expect(
        (await reqFrom(t(), '203.0.113.9', 'POST', '/api/v1/account/login', { email: s.email, password: s.password })).status,
      ).toBe(200);
      expect((await logIn(t(), 'other@example.com', 'wrong password')).res.status).toBe(401);
      // X-Forwarded-For is ignored unless TRUST_PROXY is set
      expect((await logIn(t(), s.email, s.password, { 'X-Forwarded-For': '198.51.100.7' })).res.status).toBe(429);
      t().clock.advance(retry * 1000);
      expect((await logIn(t(), s.email, s.password)).res.status).toBe(200);
    });

    it('parallel guesses cannot slip past the limit', async () => {
      const s = await signUp(t());
      const answers = await Promise.all(Array.from({ length: 10 }, () => logIn(t(), s.email, 'wrong password')));
      const statuses = answers.map((a) => a.res.status).sort();
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(5).fill(429)]);
    });

    it('a success clears the failures of the window', async () => {
      const s = await signUp(t());
      for (let i = 0; i < 4; i++) await logIn(t(), s.email, 'wrong password');
      expect((await logIn(t(), s.email, s.password)).res.status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await logIn(t(), s.email, 'wrong password')).res.status).toBe(401);
      expect((await logIn(t(), s.email, 'wrong password')).res.status).toBe(429);
    });

    it('trusts X-Forwarded-For only with TRUST_PROXY', async () => {
      t().deps.config.trustProxy = 1;
      const s = await signUp(t());
      for (let i = 0; i < 6; i++) {
        await logIn(t(), s.email, 'wrong password', { 'X-Forwarded-For': '198.51.100.7' });
      }
      expect((await logIn(t(), s.email, s.password, { 'X-Forwarded-For': '198.51.100.7' })).res.status).toBe(429);
      expect((await logIn(t(), s.email, s.password, { 'X-Forwarded-For': '198.51.100.8' })).res.status).toBe(200);
    });
  });

  describe('me, logout, change password', () => {
    it('GET /account/me needs a token', async () => {
      const res = await t().req('GET', '/api/v1/account/me');
      expect(res.status).toBe(401);
      expect(await json(res)).toMatchObject({ success: false, msg: expect.any(String) });
    });

    it('logout revokes the access and refresh tokens of that session only', async () => {
      const s = await signUp(t());
      const other = (await logIn(t(), s.email, s.password)).body;
      const res = await t().req('GET', '/api/v1/account/logout', { token: s.token });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: true });
      const me = await t().req('GET', '/api/v1/account/me', { token: s.token });
      expect(me.status).toBe(401);
      expect(await json(me)).toEqual({ success: false, msg: M.sessionExpired });
      expect((await t().req('POST', '/api/v1/auth/refresh', { token: s.refresh_token })).status).toBe(401);
      expect((await t().req('GET', '/api/v1/account/me', { token: other.token })).status).toBe(200);
      expect((await t().req('POST', '/api/v1/auth/refresh', { token: other.refresh_token })).status).toBe(200);
    });

    it('PUT /account/login changes the password, revokes other sessions and emails the user', async () => {
      const s = await signUp(t());
      const other = (await logIn(t(), s.email, s.password)).body;
      const newPassword = 'a brand new passphrase';
      const res = await t().req('PUT', '/api/v1/account/login', {
        token: s.token,
        body: { currentPassword: s.password, newPassword },
      });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ success: true, msg: M.passwordChanged });
      // this session lives on; the other is gone (access and refresh)
      expect((await t().req('GET', '/api/v1/account/me', { token: s.token })).status).toBe(200);
      expect((await t().req('POST', '/api/v1/auth/refresh', { token: s.refresh_token })).status).toBe(200);
      expect((await t().req('GET', '/api/v1/account/me', { token: other.token })).status).toBe(401);
      expect((await t().req('POST', '/api/v1/auth/refresh', { token: other.refresh_token })).status).toBe(401);
      expect((await logIn(t(), s.email, s.password)).res.status).toBe(401);
      expect((await logIn(t(), s.email, newPassword)).res.status).toBe(200);
      const mail = t().mailer.sent.at(-1);
      expect(mail?.to).toBe(s.email);
      expect(mail?.subject).toMatch(/password was changed/i);
      expect(mail?.text).not.toContain(newPassword);
      for (const line of LOG_LINES) {
        expect(line).not.toContain(newPassword);
        expect(line).not.toContain(s.refresh_token);
      }
    });

    it('PUT /account/login refuses a wrong current password, a common or short new one', async () => {
      const s = await signUp(t());
      const put = (body: unknown) => t().req('PUT', '/api/v1/account/login', { token: s.token, body });
      const wrong = await put({ currentPassword: 'not my password', newPassword: 'another fine passphrase' });
      expect(wrong.status).toBe(400);
      expect(await json(wrong)).toMatchObject({
        msg: M.currentPasswordWrong,
        errors: { currentPassword: M.currentPasswordWrong },
      });
      const common = await put({ currentPassword: s.password, newPassword: 'password1' });
      expect((await json(common)).errors).toEqual({ newPassword: M.passwordTooCommon });
      const short = await put({ currentPassword: s.password, newPassword: '123' });
      expect((await json(short)).errors).toEqual({ newPassword: M.passwordTooShort });
      const missing = await put({ newPassword: 'another fine passphrase' });
      expect((await json(missing)).errors).toEqual({ currentPassword: M.currentPasswordRequired });
      expect((await logIn(t(), s.email, s.password)).res.status).toBe(200);
      expect((await t().req('PUT', '/api/v1/account/login', { body: { currentPassword: 'x', newPassword: 'y' } })).status).toBe(
        401,
      );
    });
  });
});
