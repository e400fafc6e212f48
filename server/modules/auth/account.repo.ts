import type { Kysely } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import type { DB } from '../../platform/db/schema.js';
import { revokeAccountSessions } from './session.repo.js';

/** The account queries of /account (registration, login, password change and reset, the profile). */

/** The account holding `email` (lowercased): what a login needs. */
export function accountByEmail(db: Kysely<DB>, email: string) {
  return db
    .selectFrom('accounts')
    .select(['id', 'company_id', 'name', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
}

/** The account `accountId`: what a password change needs. */
export function accountById(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('accounts')
    .select(['id', 'email', 'name', 'password_hash'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
}

/** GET /account/me: the account and its company's name. */
export function accountProfile(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('accounts as a')
    .innerJoin('companies as co', 'co.id', 'a.company_id')
    .select(['a.id', 'a.name', 'a.email', 'a.photo', 'a.company_id', 'co.name as company_name'])
    .where('a.id', '=', accountId)
    .executeTakeFirst();
}

/** The profile photo's `files` row, written with the account in the registration transaction. */
export async function insertPhotoFile(
  db: Kysely<DB>,
  p: { name: string; companyId: string; accountId: string; mimeType: string; size: number; now: Date },
): Promise<void> {
  await db
    .insertInto('files')
    .values({
      id: newId(p.now),
      name: p.name,
      company_id: p.companyId,
      account_id: p.accountId,
      kind: 'photo',
      mime_type: p.mimeType,
      size: p.size,
      created_at: p.now.toISOString(),
    })
    .execute();
}

export async function setPasswordHash(db: Kysely<DB>, accountId: string, passwordHash: string, now: Date): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ password_hash: passwordHash, updated_at: now.toISOString() })
    .where('id', '=', accountId)
    .execute();
}

/** A new password, and every session of the account revoked but `keep` (the caller's own), in one transaction. */
export function changePassword(db: Kysely<DB>, accountId: string, passwordHash: string, now: Date, keep: string) {
  return db.transaction().execute(async (trx) => {
    await setPasswordHash(trx, accountId, passwordHash, now);
    await revokeAccountSessions(trx, accountId, 'password_changed', now, keep);
  });
}

export async function insertResetToken(
  db: Kysely<DB>,
  p: { accountId: string; tokenHash: string; now: Date; ttlMs: number },
): Promise<void> {
  await db
    .insertInto('password_reset_tokens')
    .values({
      id: newId(p.now),
      account_id: p.accountId,
      token_hash: p.tokenHash,
      created_at: p.now.toISOString(),
      expires_at: new Date(p.now.getTime() + p.ttlMs).toISOString(),
      used_at: null,
    })
    .execute();
}

/** The unused, unexpired reset token with this hash, with its account's name and email (the strength check's inputs). */
export function liveResetToken(db: Kysely<DB>, tokenHash: string, now: Date) {
  return db
    .selectFrom('password_reset_tokens as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select(['r.id', 'r.account_id', 'a.name', 'a.email'])
    .where('r.token_hash', '=', tokenHash)
    .where('r.used_at', 'is', null)
    .where('r.expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

/**
 * Uses a reset token: claims it (single use: only one request can), retires the account's other links,
 * sets the password and revokes every session, in one transaction. False when another request claimed it.
 */
export function resetPassword(db: Kysely<DB>, reset: { id: string; account_id: string }, passwordHash: string, now: Date) {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('password_reset_tokens')
      .set({ used_at: now.toISOString() })
      .where('id', '=', reset.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    await trx
      .updateTable('password_reset_tokens')
      .set({ used_at: now.toISOString() })
      .where('account_id', '=', reset.account_id)
      .where('used_at', 'is', null)
      .execute();
    await setPasswordHash(trx, reset.account_id, passwordHash, now);
    await revokeAccountSessions(trx, reset.account_id, 'password_reset', now);
    return true;
  });
}

/** A new company and its first account. */
export interface NewCompanyAccount {
  companyId: string;
  accountId: string;
  companyName: string;
  name: string;
  /** lowercased */
  email: string;
  passwordHash: string;
  photo?: string | null;
  now: Date;
}

/** Inserts a company and its first account (./accounts.ts runs the company's hooks after). */
export async function insertCompanyAndAccount(db: Kysely<DB>, a: NewCompanyAccount): Promise<void> {
  const at = a.now.toISOString();
  await db.insertInto('companies').values({ id: a.companyId, name: a.companyName, created_at: at }).execute();
  await db
    .insertInto('accounts')
    .values({
      id: a.accountId,
      company_id: a.companyId,
      name: a.name,
      email: a.email,
      password_hash: a.passwordHash,
      photo: a.photo ?? null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}
