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
} from '@contract/account.js';
import { type Context, Hono } from 'hono';
import { newId } from '../../platform/crypto/ids.js';
import type { AppDeps, MailMessage } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { isUniqueViolation } from '../../platform/http/db-errors.js';
import { HttpError, jsonBody, parseWith, readJson } from '../../platform/http/http.js';
import { clear, enforce, hit, LIMITS, refuseIfBlocked } from '../../platform/http/ratelimit.js';
import type { AppEnv } from '../../platform/http/types.js';
import { runLater } from '../../platform/jobs/later.js';
import { beginUpload } from '../../platform/uploads/pending-uploads.js';
import { PhotoError, reencodePhoto } from '../../platform/uploads/photos.js';
import { fileUrl, newUploadName, removeUpload, sniffImageType, storeUpload } from '../../platform/uploads/uploads.js';
import { record } from '../audit/index.js';
import {
  accountByEmail,
  accountById,
  accountProfile,
  changePassword,
  insertPhotoFile,
  insertResetToken,
  liveResetToken,
  resetPassword,
  setPasswordHash,
} from './account.repo.js';
import { insertCompanyWithAccount } from './accounts.js';
import { clientIp, requireAuth } from './middleware.js';
import { guardedVerify, knownDevice, PASSWORD_BACKOFF, rememberDevice, tarpit, verifyCallerPassword } from './password-guard.js';
import { passwordWeakness } from './password-strength.js';
import { dummyHash, hashPassword, needsRehash } from './passwords.js';
import { revokeSession } from './session.repo.js';
import { startSession } from './sessions.js';
import { newOpaqueToken, sha256 } from './tokens.js';

/** Reset links are valid 30 minutes. */
export const RESET_TOKEN_TTL_MS = 30 * 60_000;
/** The register form: the photo plus room for the text fields and multipart framing. */
const REGISTER_BODY_MAX = PHOTO_MAX_BYTES + 64 * 1024;

/** The forgot-password answer, byte for byte the same whether the email is known or not. */
const FORGOT_ANSWER = JSON.stringify({ success: true, msg: M.forgotPasswordSent });

const fieldError = (status: 400 | 401 | 409 | 413, field: string, msg: string) =>
  new HttpError(status, msg, { errors: { [field]: msg } });

/** Refuses a new password that is common or too easy to guess for this user (zxcvbn, off the event loop). */
async function refuseWeak(field: string, password: string, user: { name: string; email: string }) {
  const weakness = await passwordWeakness(password, user);
  if (weakness) throw fieldError(400, field, weakness);
}

/** Email goes out after the answer so its latency never reveals anything; failures are logged. */
function sendLater(deps: AppDeps, message: MailMessage, what: string) {
  runLater(deps, what, () => deps.mailer.send(message));
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
  const raw = await readJson(c);
  return raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
}

/** The photo's pixels encoded again (off the event loop) and its type, or undefined when none was sent. */
async function readPhoto(file: unknown) {
  if (file === undefined || file === '' || (file instanceof File && file.size === 0)) return undefined;
  if (!(file instanceof File)) throw fieldError(400, 'file', M.photoType);
  if (file.size > PHOTO_MAX_BYTES) throw fieldError(413, 'file', M.photoTooLarge);
  const upload = new Uint8Array(await file.arrayBuffer());
  const type = sniffImageType(upload);
  if (!type) throw fieldError(400, 'file', M.photoType);
  try {
    return { bytes: await reencodePhoto(upload, type), type };
  } catch (e) {
    if (!(e instanceof PhotoError)) throw e;
    if (e.reason === 'too-many-pixels') throw fieldError(400, 'file', M.photoTooManyPixels);
    throw fieldError(400, 'file', e.reason === 'unreadable' ? M.photoType : M.photoUnreadable);
  }
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
    const email = fields.email.toLowerCase();
    // every well-formed attempt counts, for a new email or a taken one alike, so probing emails is slow
    const signUps = { ...LIMITS.signUpPerIp, max: deps.config.signUpsPerHour ?? LIMITS.signUpPerIp.max };
    await enforce(db, signUps, clientIp(c, deps), deps.clock.now());
    await refuseWeak('password', fields.password, { name: fields.name, email });
    const photo = await readPhoto(form.file);

    // a taken email says so, and nothing else: no account data, nothing changed, nothing sent
    const emailTaken = () => fieldError(409, 'email', M.emailTaken);
    if (await accountByEmail(db, email)) throw emailTaken();

    const passwordHash = await hashPassword(fields.password);
    const now = deps.clock.now();
    const companyId = newId(now);
    const accountId = newId(now);
    // the photo's file is marked before it is written: if this process dies first, the sweep removes it
    const photoName = photo ? newUploadName(photo.type) : null;
    const pending = photoName ? await beginUpload(deps, 'photo', photoName, null) : null;
    let session: Awaited<ReturnType<typeof startSession>>;
    try {
      if (photo && photoName) await storeUpload(deps.config.dataDir, photoName, photo.bytes);
      session = await db.transaction().execute(async (trx) => {
        await insertCompanyWithAccount(trx, deps.events, {
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
          await insertPhotoFile(trx, {
            name: photoName,
            companyId,
            accountId,
            mimeType: photo.type,
            size: photo.bytes.length,
            now,
          });
          await pending?.settle(trx);
        }
        return startSession(deps, { accountId, companyId }, sessionMeta(c, deps), trx);
      });
    } catch (e) {
      if (photoName) await removeUpload(deps.config.dataDir, photoName);
      if (isUniqueViolation(e)) throw emailTaken();
      throw e;
    } finally {
      await pending?.end();
    }
    rememberDevice(deps, c, { id: accountId, password_hash: passwordHash });
    const body: LoginResponse = { success: true, msg: M.registered, ...session };
    return c.json(body, 201);
  });

  app.post('/login', small, async (c) => {
    const now = deps.clock.now();
    const ip = clientIp(c, deps);
    // an IP already over its limit is refused before anything else (no body parsed, no write)
    await tarpit(deps, () => refuseIfBlocked(db, LIMITS.loginPerIp, ip, now));
    const body = await jsonBody(c, LoginBodySchema);
    const email = body.email.toLowerCase();
    const account = await accountByEmail(db, email);
    // a browser where this account logged in before: its own back-off instead of the account's, so a
    // stranger's guesses never lock the owner out (see docs/auth.md)
    const device = knownDevice(deps, c, account);
    const subject = `${ip}|${email}`;
    // Counted before verifying, so parallel guesses cannot slip past the limits, and a flood is answered
    // 429 without hashing anything; a success clears its email's count and is forgiven to its IP.
    if (!device) await tarpit(deps, () => enforce(db, LIMITS.login, subject, now));
    // Unknown emails are verified against a dummy hash: both answers take the same time.
    const valid = await guardedVerify(
      deps,
      { ip, account: account ? { id: account.id } : { email }, device },
      account?.password_hash ?? (await dummyHash()),
      body.password,
    );
    if (!account || !valid) {
      // an unknown email belongs to no company: only a known account's failures have a log to go to
      if (account)
        await record(deps, {
          companyId: account.company_id,
          actor: { id: account.id, email },
          action: 'auth.sign_in_failed',
          target: email,
          ip,
        });
      throw new HttpError(401, M.invalidCredentials);
    }
    await clear(db, LIMITS.login, subject);
    let passwordHash = account.password_hash;
    if (needsRehash(passwordHash)) {
      passwordHash = await hashPassword(body.password);
      await setPasswordHash(db, account.id, passwordHash, now);
    }
    const session = await startSession(deps, { accountId: account.id, companyId: account.company_id }, sessionMeta(c, deps));
    rememberDevice(deps, c, { id: account.id, password_hash: passwordHash });
    await record(deps, {
      companyId: account.company_id,
      actor: { id: account.id, email },
      action: 'auth.sign_in',
      target: email,
      ip,
    });
    const answer: LoginResponse = { success: true, msg: M.loginSuccess, ...session };
    return c.json(answer);
  });

  app.put('/login', small, auth, async (c) => {
    const { accountId, sessionId } = c.get('auth');
    const body = await jsonBody(c, ChangePasswordBodySchema);
    const now = deps.clock.now();
    const account = await accountById(db, accountId);
    if (!(await verifyCallerPassword(deps, c, accountId, account.password_hash, body.currentPassword))) {
      throw fieldError(400, 'currentPassword', M.currentPasswordWrong);
    }
    await refuseWeak('newPassword', body.newPassword, account);
    const passwordHash = await hashPassword(body.newPassword);
    await changePassword(db, accountId, passwordHash, now, sessionId);
    // the device cookies of the old password are void: this browser gets one for the new password
    rememberDevice(deps, c, { id: accountId, password_hash: passwordHash });
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
    const row = await accountProfile(db, c.get('auth').accountId);
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

  /**
   * The answer depends only on the body's form and the per-IP limit: the per-email limit, the account
   * lookup, the token and the email happen after it has gone (runLater), for a known and an unknown email
   * alike, so neither its bytes nor its timing tell whether the address has an account.
   */
  app.post('/forgotpassword', small, async (c) => {
    const body = await jsonBody(c, ForgotPasswordBodySchema);
    const email = body.email.toLowerCase();
    const now = deps.clock.now();
    // Per IP: a visible 429 (it tells nothing about any account).
    await enforce(db, LIMITS.forgotPerIp, clientIp(c, deps), now);
    runLater(deps, 'password reset link', () => sendResetLink(email, now));
    return c.body(FORGOT_ANSWER, 200, { 'Content-Type': 'application/json' });
  });

  /** Per email: no more than 3 links an hour (silently: the answer was the same 200 already). */
  async function sendResetLink(email: string, now: Date) {
    const perEmail = await hit(db, LIMITS.forgotPerEmail, email, now);
    const account = await accountByEmail(db, email);
    if (!account || perEmail.limited) return;
    const token = newOpaqueToken();
    await insertResetToken(db, { accountId: account.id, tokenHash: sha256(token), now, ttlMs: RESET_TOKEN_TTL_MS });
    const link = `${deps.config.publicUrl}/reset-password#token=${token}`;
    await deps.mailer.send({
      to: email,
      subject: 'Reset your Parley password',
      text: `Hello ${account.name},\n\nSomeone (hopefully you) asked to reset the password of your Parley account. Open this link within 30 minutes to choose a new password:\n\n${link}\n\nThe link works once. If you did not ask for it, ignore this email: your password stays the same.\n`,
    });
  }

  app.post('/resetpassword', small, async (c) => {
    const body = await jsonBody(c, ResetPasswordBodySchema);
    const now = deps.clock.now();
    const invalid = () => new HttpError(400, M.resetInvalid);
    const reset = await liveResetToken(db, sha256(body.token), now);
    if (!reset) throw invalid();
    await refuseWeak('password', body.password, reset);
    const passwordHash = await hashPassword(body.password);
    if (!(await resetPassword(db, reset, passwordHash, now))) throw invalid();
    // the owner proved the mailbox and chose a new password: their failed attempts no longer hold them back
    await clear(db, PASSWORD_BACKOFF, `a:${reset.account_id}`);
    await clear(db, LIMITS.login, `${clientIp(c, deps)}|${reset.email}`);
    sendLater(
      deps,
      {
        to: reset.email,
        subject: 'Your Parley password was reset',
        text: `Hello ${reset.name},\n\nThe password of your Parley account was reset on ${now.toUTCString()}, and every device was signed out.\n\nIf this was not you, reset it again now: ${deps.config.publicUrl}/forgot-password\n`,
      },
      'password reset notice',
    );
    return c.json({ success: true, msg: M.passwordReset });
  });

  return app;
}
