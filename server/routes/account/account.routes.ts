import { type Context, Hono } from 'hono';
import {
  ChangePasswordBodySchema,
  ForgotPasswordBodySchema,
  LoginBodySchema,
  type LoginResponse,
  ACCOUNT_MESSAGES as M,
  type MeResponse,
  PHOTO_MAX_BYTES,
  RegisterFieldsSchema,
  ResetPasswordBodySchema,
} from '../../../src/api/contract/account.js';
import { clientIp, requireAuth } from '../../lib/auth.js';
import { JSON_BODY_MAX, limitBody } from '../../lib/body-limit.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import type { AppDeps, MailMessage } from '../../lib/deps.js';
import { HttpError, jsonBody, parseWith } from '../../lib/http.js';
import { newId } from '../../lib/ids.js';
import { insertCompanyWithAccount } from '../../services/accounts.js';
import { dummyHash, hashPassword, isCommonPassword, needsRehash, verifyPassword } from '../../services/passwords.js';
import { clear, enforce, hit, LIMITS } from '../../services/ratelimit.js';
import { revokeAccountSessions, revokeSession, startSession } from '../../services/sessions.js';
import { newOpaqueToken, sha256 } from '../../services/tokens.js';
import { fileUrl, removeUpload, sniffImageType, storeUpload } from '../../services/uploads.js';
import type { AppEnv } from '../../types.js';

/** Reset links are valid 30 minutes. */
export const RESET_TOKEN_TTL_MS = 30 * 60_000;
/** The register form: the photo plus room for the text fields and multipart framing. */
const REGISTER_BODY_MAX = PHOTO_MAX_BYTES + 64 * 1024;

/** The forgot-password answer, byte for byte the same whether the email is known or not. */
const FORGOT_ANSWER = JSON.stringify({ success: true, msg: M.forgotPasswordSent });

const fieldError = (status: 400 | 401 | 409 | 413, field: string, msg: string) =>
  new HttpError(status, msg, { errors: { [field]: msg } });

function refuseCommon(field: string, password: string) {
  if (isCommonPassword(password)) throw fieldError(400, field, M.passwordTooCommon);
}

/** Email goes out after the answer so its latency never reveals anything; failures are logged. */
function sendLater(deps: AppDeps, message: MailMessage, what: string) {
  deps.mailer.send(message).catch((e: unknown) => {
    deps.logger.error('email failed', { what, error: e instanceof Error ? e.message : String(e) });
  });
}

const sessionMeta = (c: Context, deps: AppDeps) => ({ ip: clientIp(c, deps), userAgent: c.req.header('User-Agent') });

/** Reads the register form: multipart (with the optional photo) or, for scripts, JSON without one. */
async function readRegisterForm(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header('Content-Type') ?? '';
  if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
    try {
      return await c.req.parseBody();
    } catch {
      throw new HttpError(400, 'Malformed form body');
    }
  }
  try {
    const text = await c.req.text();
    const raw: unknown = text ? JSON.parse(text) : {};
    return raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  } catch {
    throw new HttpError(400, 'Malformed JSON body');
  }
}

/** The photo's bytes and sniffed type, or undefined when none was sent. */
async function readPhoto(file: unknown) {
  if (file === undefined || file === '' || (file instanceof File && file.size === 0)) return undefined;
  if (!(file instanceof File)) throw fieldError(400, 'file', M.photoType);
  if (file.size > PHOTO_MAX_BYTES) throw fieldError(413, 'file', M.photoTooLarge);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const type = sniffImageType(bytes);
  if (!type) throw fieldError(400, 'file', M.photoType);
  return { bytes, type };
}

export function accountRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const db = deps.db.db;
  const auth = requireAuth(deps);
  const small = limitBody(JSON_BODY_MAX);
  // computed now, so even the first unknown-email login costs exactly one verify
  void dummyHash();

  app.post('/register', limitBody(REGISTER_BODY_MAX, M.photoTooLarge), async (c) => {
    const form = await readRegisterForm(c);
    const text = (k: string) => (typeof form[k] === 'string' ? form[k] : undefined);
    const fields = parseWith(RegisterFieldsSchema, { name: text('name'), email: text('email'), password: text('password') });
    refuseCommon('password', fields.password);
    const photo = await readPhoto(form.file);
    const email = fields.email.toLowerCase();

    const emailTaken = () => fieldError(409, 'email', M.emailTaken);
    const existing = await db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
    if (existing) throw emailTaken();

    const passwordHash = await hashPassword(fields.password);
    const now = deps.clock.now();
    const companyId = newId(now);
    const accountId = newId(now);
    const photoName = photo ? await storeUpload(deps.config.dataDir, photo.bytes, photo.type) : null;
    let session: Awaited<ReturnType<typeof startSession>>;
    try {
      session = await db.transaction().execute(async (trx) => {
        await insertCompanyWithAccount(trx, {
          companyId,
          accountId,
          companyName: `${fields.name}'s company`,
          name: fields.name,
          email,
          passwordHash,
          photo: photoName,
          now,
        });
        if (photo && photoName) {
          await trx
            .insertInto('files')
            .values({
              id: newId(now),
              name: photoName,
              company_id: companyId,
              account_id: accountId,
              kind: 'photo',
              mime_type: photo.type,
              size: photo.bytes.length,
              created_at: now.toISOString(),
            })
            .execute();
        }
        return startSession(deps, { accountId, companyId }, sessionMeta(c, deps), trx);
      });
    } catch (e) {
      if (photoName) await removeUpload(deps.config.dataDir, photoName);
      if (isUniqueViolation(e)) throw emailTaken();
      throw e;
    }
    const body: LoginResponse = { success: true, msg: M.registered, ...session };
    return c.json(body, 201);
  });

  app.post('/login', small, async (c) => {
    const body = await jsonBody(c, LoginBodySchema);
    const email = body.email.toLowerCase();
    const now = deps.clock.now();
    const subject = `${clientIp(c, deps)}|${email}`;
    // Counted before verifying, so parallel guesses cannot slip past the limit; a success clears it.
    await enforce(db, LIMITS.login, subject, now);
    const account = await db
      .selectFrom('accounts')
      .select(['id', 'company_id', 'password_hash'])
      .where('email', '=', email)
      .executeTakeFirst();
    // Unknown emails are verified against a dummy hash: both answers take the same time.
    const valid = await verifyPassword(account?.password_hash ?? (await dummyHash()), body.password);
    if (!account || !valid) throw new HttpError(401, M.invalidCredentials);
    await clear(db, LIMITS.login, subject, now);
    if (needsRehash(account.password_hash)) {
      const upgraded = await hashPassword(body.password);
      await db
        .updateTable('accounts')
        .set({ password_hash: upgraded, updated_at: now.toISOString() })
        .where('id', '=', account.id)
        .execute();
    }
    const session = await startSession(deps, { accountId: account.id, companyId: account.company_id }, sessionMeta(c, deps));
    const answer: LoginResponse = { success: true, msg: M.loginSuccess, ...session };
    return c.json(answer);
  });

  app.put('/login', small, auth, async (c) => {
    const { accountId, sessionId } = c.get('auth');
    const body = await jsonBody(c, ChangePasswordBodySchema);
    const now = deps.clock.now();
    await enforce(db, LIMITS.changePassword, accountId, now);
    const account = await db
      .selectFrom('accounts')
      .select(['email', 'name', 'password_hash'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (!(await verifyPassword(account.password_hash, body.currentPassword))) {
      throw fieldError(400, 'currentPassword', M.currentPasswordWrong);
    }
    refuseCommon('newPassword', body.newPassword);
    await clear(db, LIMITS.changePassword, accountId, now);
    const passwordHash = await hashPassword(body.newPassword);
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('accounts')
        .set({ password_hash: passwordHash, updated_at: now.toISOString() })
        .where('id', '=', accountId)
        .execute();
      await revokeAccountSessions(trx, accountId, 'password_changed', now, sessionId);
    });
    sendLater(
      deps,
      {
        to: account.email,
        subject: 'Your Parley password was changed',
        text: `Hello ${account.name},\n\nThe password of your Parley account was changed on ${now.toUTCString()}. Every other device was signed out.\n\nIf this was not you, reset your password now: ${deps.config.publicUrl}/forgot-password\n`,
      },
      'password changed notice',
    );
    return c.json({ success: true, msg: M.passwordChanged });
  });

  app.get('/me', auth, async (c) => {
    const { accountId } = c.get('auth');
    const row = await db
      .selectFrom('accounts as a')
      .innerJoin('companies as co', 'co.id', 'a.company_id')
      .select(['a.id', 'a.name', 'a.email', 'a.photo', 'a.company_id', 'co.name as company_name'])
      .where('a.id', '=', accountId)
      .executeTakeFirst();
    if (!row) throw new HttpError(401, M.sessionExpired);
    const body: MeResponse = {
      success: true,
      account: {
        _id: row.id,
        name: row.name,
        email: row.email,
        photoUrl: row.photo ? fileUrl(row.photo) : null,
        companyId: row.company_id,
        company: { _id: row.company_id, name: row.company_name },
      },
    };
    return c.json(body);
  });

  app.get('/logout', auth, async (c) => {
    await revokeSession(db, c.get('auth').sessionId, 'logout', deps.clock.now());
    return c.json({ success: true });
  });

  app.post('/forgotpassword', small, async (c) => {
    const body = await jsonBody(c, ForgotPasswordBodySchema);
    const email = body.email.toLowerCase();
    const now = deps.clock.now();
    // Per IP: a visible 429 (it tells nothing about any account).
    await enforce(db, LIMITS.forgotPerIp, clientIp(c, deps), now);
    // Per email: the same 200 as always, just no more mail, so the answer never tells whether the
    // address has an account nor that it has hit its limit.
    const perEmail = await hit(db, LIMITS.forgotPerEmail, email, now);
    const account = await db.selectFrom('accounts').select(['id', 'name']).where('email', '=', email).executeTakeFirst();
    const token = newOpaqueToken();
    const tokenHash = sha256(token);
    if (account && !perEmail.limited) {
      await db
        .insertInto('password_reset_tokens')
        .values({
          id: newId(now),
          account_id: account.id,
          token_hash: tokenHash,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + RESET_TOKEN_TTL_MS).toISOString(),
          used_at: null,
        })
        .execute();
      const link = `${deps.config.publicUrl}/reset-password#token=${token}`;
      sendLater(
        deps,
        {
          to: email,
          subject: 'Reset your Parley password',
          text: `Hello ${account.name},\n\nSomeone (hopefully you) asked to reset the password of your Parley account. Open this link within 30 minutes to choose a new password:\n\n${link}\n\nThe link works once. If you did not ask for it, ignore this email: your password stays the same.\n`,
        },
        'password reset link',
      );
    }
    return c.body(FORGOT_ANSWER, 200, { 'Content-Type': 'application/json' });
  });

  app.post('/resetpassword', small, async (c) => {
    const body = await jsonBody(c, ResetPasswordBodySchema);
    const now = deps.clock.now();
    const invalid = () => new HttpError(400, M.resetInvalid);
    const tokenHash = sha256(body.token);
    const reset = await db
      .selectFrom('password_reset_tokens')
      .select(['id', 'account_id'])
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    if (!reset) throw invalid();
    refuseCommon('password', body.password);
    const passwordHash = await hashPassword(body.password);
    const account = await db.transaction().execute(async (trx) => {
      // single use: only one request can claim the token
      const claimed = await trx
        .updateTable('password_reset_tokens')
        .set({ used_at: now.toISOString() })
        .where('id', '=', reset.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw invalid();
      await trx
        .updateTable('password_reset_tokens')
        .set({ used_at: now.toISOString() })
        .where('account_id', '=', reset.account_id)
        .where('used_at', 'is', null)
        .execute();
      await trx
        .updateTable('accounts')
        .set({ password_hash: passwordHash, updated_at: now.toISOString() })
        .where('id', '=', reset.account_id)
        .execute();
      await revokeAccountSessions(trx, reset.account_id, 'password_reset', now);
      return trx.selectFrom('accounts').select(['email', 'name']).where('id', '=', reset.account_id).executeTakeFirstOrThrow();
    });
    sendLater(
      deps,
      {
        to: account.email,
        subject: 'Your Parley password was reset',
        text: `Hello ${account.name},\n\nThe password of your Parley account was reset on ${now.toUTCString()}, and every device was signed out.\n\nIf this was not you, reset it again now: ${deps.config.publicUrl}/forgot-password\n`,
      },
      'password reset notice',
    );
    return c.json({ success: true, msg: M.passwordReset });
  });

  return app;
}
