import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { pruneExpired } from '../../platform/http/ratelimit.js';

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

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deletes, batch by batch, the rows of `table` whose id `pick` selects (at most `limit` at a time). */
async function deleteInBatches(
  db: Kysely<DB>,
  table: 'sessions' | 'refresh_tokens' | 'password_reset_tokens',
  pick: (limit: number) => Promise<string[]>,
  before?: (trx: Kysely<DB>, ids: string[]) => Promise<void>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await pick(SWEEP_BATCH);
    if (ids.length === 0) return total;
    await db.transaction().execute(async (trx) => {
      if (before) await before(trx, ids);
      await trx.deleteFrom(table).where('id', 'in', ids).execute();
    });
    total += ids.length;
    if (ids.length < SWEEP_BATCH) return total;
    await turn();
  }
}

export async function sweepExpired(db: Kysely<DB>, now: Date): Promise<SweepResult> {
  const at = now.toISOString();
  const revokedBefore = new Date(now.getTime() - REVOKED_SESSION_KEPT_MS).toISOString();
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

  const refreshTokens = await deleteInBatches(db, 'refresh_tokens', async (limit) =>
    ids(await db.selectFrom('refresh_tokens').select('id').where('expires_at', '<=', at).limit(limit).execute()),
  );
  const sessions = await deleteInBatches(
    db,
    'sessions',
    async (limit) =>
      ids(
        await db
          .selectFrom('sessions')
          .select('id')
          .where((eb) => eb.or([eb('expires_at', '<=', at), eb('revoked_at', '<=', revokedBefore)]))
          .limit(limit)
          .execute(),
      ),
    // their refresh tokens first (not left to the foreign key's cascade)
    async (trx, sessionIds) => {
      await trx.deleteFrom('refresh_tokens').where('session_id', 'in', sessionIds).execute();
    },
  );
  const resetTokens = await deleteInBatches(db, 'password_reset_tokens', async (limit) =>
    ids(await db.selectFrom('password_reset_tokens').select('id').where('expires_at', '<=', at).limit(limit).execute()),
  );
  const rateLimits = await pruneExpired(db, now);
  return { sessions, refreshTokens, resetTokens, rateLimits };
}

/** Runs the sweep now and every `intervalMs` until stop(); failures are logged and the next run tries again. */
export function startSweeper(deps: AppDeps, intervalMs = SWEEP_INTERVAL_MS): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    if (stopped) return;
    running = running.then(async () => {
      if (stopped) return;
      try {
        const s = await sweepExpired(deps.db.db, deps.clock.now());
        // (field names the logger does not take for secrets: these are counts)
        const counts = { sessions: s.sessions, refreshRows: s.refreshTokens, resetRows: s.resetTokens, attempts: s.rateLimits };
        if (Object.values(counts).some((n) => n > 0)) deps.logger.info('expired rows deleted', counts);
      } catch (e) {
        deps.logger.error('expiry sweep failed', { error: e instanceof Error ? e.message : String(e) });
      }
    });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
