/**
 * The SQL of the expiry sweep (sweep.ts): refresh tokens, sessions and password reset tokens that can no
 * longer be used are deleted, `batch` rows at a time, the event loop turning between batches.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { yieldToLoop } from '../../platform/jobs/cooperative.js';

/** Deletes, batch by batch, the rows of `table` whose id `pick` selects (at most `batch` at a time). */
async function deleteInBatches(
  db: Kysely<DB>,
  table: 'sessions' | 'refresh_tokens' | 'password_reset_tokens',
  batch: number,
  pick: (limit: number) => Promise<string[]>,
  before?: (trx: Kysely<DB>, ids: string[]) => Promise<void>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await pick(batch);
    if (ids.length === 0) return total;
    await db.transaction().execute(async (trx) => {
      if (before) await before(trx, ids);
      await trx.deleteFrom(table).where('id', 'in', ids).execute();
    });
    total += ids.length;
    if (ids.length < batch) return total;
    await yieldToLoop();
  }
}

/**
 * Deletes refresh tokens and reset tokens expired at `at`, and sessions expired at `at` or revoked at
 * `revokedBefore` at the latest (their refresh tokens first); answers how many of each.
 */
export async function deleteExpiredAuthRows(
  db: Kysely<DB>,
  o: { at: string; revokedBefore: string; batch: number },
): Promise<{ sessions: number; refreshTokens: number; resetTokens: number }> {
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
  const refreshTokens = await deleteInBatches(db, 'refresh_tokens', o.batch, async (limit) =>
    ids(await db.selectFrom('refresh_tokens').select('id').where('expires_at', '<=', o.at).limit(limit).execute()),
  );
  const sessions = await deleteInBatches(
    db,
    'sessions',
    o.batch,
    async (limit) =>
      ids(
        await db
          .selectFrom('sessions')
          .select('id')
          .where((eb) => eb.or([eb('expires_at', '<=', o.at), eb('revoked_at', '<=', o.revokedBefore)]))
          .limit(limit)
          .execute(),
      ),
    // their refresh tokens first (not left to the foreign key's cascade)
    async (trx, sessionIds) => {
      await trx.deleteFrom('refresh_tokens').where('session_id', 'in', sessionIds).execute();
    },
  );
  const resetTokens = await deleteInBatches(db, 'password_reset_tokens', o.batch, async (limit) =>
    ids(await db.selectFrom('password_reset_tokens').select('id').where('expires_at', '<=', o.at).limit(limit).execute()),
  );
  return { sessions, refreshTokens, resetTokens };
}
