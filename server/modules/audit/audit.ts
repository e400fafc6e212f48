import { AUDIT_SYSTEM_ACTOR, type AuditAction } from '@contract/audit.js';
import { newId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { accountEmail, insertAuditEntry } from './audit.repo.js';

export interface AuditRecord {
  companyId: string;
  /** the account that acted (its email is looked up when not given); null: the system (the retention job) */
  actor: { id: string; email?: string } | null;
  action: AuditAction;
  /** what it was done to; never a secret or a key's value */
  target: string;
  /** the client's address ('' for the system) */
  ip: string;
}

const TARGET_MAX = 300;

/**
 * Appends one entry to the company's audit log. Emails are stored as they were then, so an entry keeps
 * its actor after the account is gone.
 */
export async function record(deps: Pick<AppDeps, 'db' | 'clock'>, entry: AuditRecord): Promise<void> {
  const db = deps.db.db;
  const now = deps.clock.now();
  const email = entry.actor
    ? (entry.actor.email ?? (await accountEmail(db, entry.companyId, entry.actor.id)) ?? entry.actor.id)
    : AUDIT_SYSTEM_ACTOR;
  await insertAuditEntry(db, {
    id: newId(now),
    company_id: entry.companyId,
    time: now.toISOString(),
    actor_id: entry.actor?.id ?? null,
    actor_email: email.toLowerCase(),
    action: entry.action,
    target: entry.target.slice(0, TARGET_MAX),
    ip: entry.ip.slice(0, 64),
  });
}
