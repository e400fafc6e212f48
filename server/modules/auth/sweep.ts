import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { pruneExpired } from '../../platform/http/ratelimit.js';
import { definePeriodicJob, type PeriodicJob } from '../../platform/jobs/periodic.js';
import { deleteExpiredAuthRows } from './sweep.repo.js';

/**
 * The expiry sweep: rows that can no longer be used are deleted.
 * - refresh tokens past their `expires_at` (30 days after issue: refused anyway, and too old for reuse
 *   detection, which checks the expiry first);
 * - sessions past their `expires_at` (90 days after the login), and sessions revoked (logout, password
 *   change or reset, refresh-token reuse) more than REVOKED_SESSION_KEPT_MS ago, with their refresh tokens;
 * - password reset tokens past their `expires_at` (30 minutes; used ones too);
 * - rate-limit attempts whose window has ended.
 * Deletes go a batch of SWEEP_BATCH rows at a time, yielding to the event loop between batches, so a
 * large backlog never holds the database or the loop for long. Started with the server (startup.ts),
 * every SWEEP_INTERVAL_MS, stopped at shutdown; the time comes from the injected clock.
 */
/** Every 5 minutes: the rate-limit table keeps one row per attempt, so ended ones go soon (indexed deletes). */
export const SWEEP_INTERVAL_MS = 5 * 60_000;
/** A revoked session stays visible this long (when and why it ended), then goes. */
export const REVOKED_SESSION_KEPT_MS = 7 * 24 * 60 * 60_000;
export const SWEEP_BATCH = 1000;

export interface SweepResult {
  sessions: number;
  refreshTokens: number;
  resetTokens: number;
  rateLimits: number;
}

export async function sweepExpired(db: Kysely<DB>, now: Date): Promise<SweepResult> {
  const revokedBefore = new Date(now.getTime() - REVOKED_SESSION_KEPT_MS).toISOString();
  const rows = await deleteExpiredAuthRows(db, { at: now.toISOString(), revokedBefore, batch: SWEEP_BATCH });
  const rateLimits = await pruneExpired(db, now);
  return { ...rows, rateLimits };
}

/** Runs the sweep now and every `intervalMs` until stop() (a periodic job: server/platform/jobs/periodic.ts). */
export function startSweeper(deps: AppDeps, intervalMs = SWEEP_INTERVAL_MS): PeriodicJob {
  const sweeper = definePeriodicJob(deps, {
    name: 'expiry sweep',
    everyMs: intervalMs,
    // (field names the logger does not take for secrets: these are counts)
    logAs: 'expired rows deleted',
    run: async () => {
      const s = await sweepExpired(deps.db.db, deps.clock.now());
      return { sessions: s.sessions, refreshRows: s.refreshTokens, resetRows: s.resetTokens, attempts: s.rateLimits };
    },
  });
  sweeper.start();
  return sweeper;
}
