import { PHONE_MESSAGES } from '@contract/phone.js';
import type { Kysely } from 'kysely';
import { CompanyGoneError, companyExists } from '../db/company-lock.js';
import type { DB } from '../db/schema.js';
import { HttpError, sessionExpired } from './http.js';

/**
 * Constraint violations of SQLite (better-sqlite3) and PostgreSQL (pg), read the same way, and the answer
 * a user gets when one reaches the app's error handler (a race the route's own checks could not see: two
 * renames to the same phone at once, a create while the company is being deleted).
 */

export type Violation =
  /** `table(columns)` when the driver tells (PostgreSQL's detail, SQLite's message) */
  { kind: 'unique'; target: string | undefined } | { kind: 'foreign-key' };

/** PostgreSQL 23505 / SQLite SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY; 23503 / SQLITE_CONSTRAINT_FOREIGNKEY. */
export function constraintViolation(err: unknown): Violation | null {
  const e = err as { code?: unknown; table?: unknown; detail?: unknown; message?: unknown } | null;
  const code = e?.code;
  if (code === '23505') {
    // detail: 'Key (company_id, provider)=(...) already exists.'
    const columns = typeof e?.detail === 'string' ? /^Key \(([^)]*)\)=/.exec(e.detail)?.[1] : undefined;
    const target = typeof e?.table === 'string' && columns ? `${e.table}(${columns.replace(/\s+/g, '')})` : undefined;
    return { kind: 'unique', target };
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // message: 'UNIQUE constraint failed: provider_connections.company_id, provider_connections.provider'
    const cols = typeof e?.message === 'string' ? /constraint failed: (.+)$/.exec(e.message)?.[1]?.split(',') : undefined;
    const parts = cols?.map((c) => c.trim().split('.'));
    const table = parts?.[0]?.[0];
    const target = table && parts?.every((p) => p.length === 2) ? `${table}(${parts.map((p) => p[1]).join(',')})` : undefined;
    return { kind: 'unique', target };
  }
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreign-key' };
  return null;
}

/** True when a database error is a unique-constraint violation (SQLite or PostgreSQL). */
export const isUniqueViolation = (err: unknown) => constraintViolation(err)?.kind === 'unique';
/** True when a database error is a foreign-key violation (SQLite or PostgreSQL). */
export const isForeignKeyViolation = (err: unknown) => constraintViolation(err)?.kind === 'foreign-key';

/** The duplicates users can cause, by `table(columns)`, with the field the form shows the message on. */
const DUPLICATE_ANSWERS: Record<string, { field: string; msg: string }> = {
  'phone_numbers(phone_number)': { field: 'phone_number', msg: PHONE_MESSAGES.alreadyRegistered },
};

export const CONSTRAINT_MESSAGES = {
  duplicate: 'This already exists: another request saved the same value at the same moment. Please reload and try again.',
  referenceGone: 'Something this refers to was deleted at the same moment. Please reload and try again.',
} as const;

/**
 * The answer to an error that reached the error handler, when it is a constraint violation or
 * CompanyGoneError (null otherwise):
 * - a duplicate answers 409, with the form field's message where the duplicate is a known one;
 * - a foreign-key violation (or a lock on a company) of a company that no longer exists answers 401 with
 *   the session-expired message, exactly what every later request of that deleted company gets;
 * - any other foreign-key violation (an agent deleted while a number was being pointed at it) answers 409.
 */
export async function violationAnswer(
  err: unknown,
  db: Kysely<DB>,
  auth: { companyId: string } | undefined,
): Promise<HttpError | null> {
  if (err instanceof CompanyGoneError) return sessionExpired();
  const violation = constraintViolation(err);
  if (!violation) return null;
  if (violation.kind === 'unique') {
    const known = violation.target ? DUPLICATE_ANSWERS[violation.target] : undefined;
    if (known) return new HttpError(409, known.msg, { errors: { [known.field]: known.msg } });
    return new HttpError(409, CONSTRAINT_MESSAGES.duplicate);
  }
  if (auth && !(await companyExists(db, auth.companyId))) return sessionExpired();
  return new HttpError(409, CONSTRAINT_MESSAGES.referenceGone);
}

/** The refusals a request can meet because its company was deleted while it ran (what it refers to went with it). */
const REFUSALS_OF_A_GONE_COMPANY = new Set([400, 404, 409, 422]);

/**
 * A refusal (400, 404, 409, 422) of a signed-in request whose company no longer exists answers what every
 * request of a deleted company gets, 401 with the session-expired message: a create that passed the session
 * check just before `DELETE /company/{id}` committed then found its number, agent or batch gone. Other
 * answers (and refusals of a company that still exists) stay as they are.
 */
export async function refusalAnswer(err: HttpError, db: Kysely<DB>, auth: { companyId: string } | undefined): Promise<HttpError> {
  if (!auth || !REFUSALS_OF_A_GONE_COMPANY.has(err.status)) return err;
  const exists = await companyExists(db, auth.companyId).catch(() => true);
  return exists ? err : sessionExpired();
}
