/**
 * The SQL of the call sweeper (sweep.ts): every company's calls nobody will finish, found by their age
 * (the sweep is the server's, not a company's: each row it ends is then ended in its own company through
 * session.repo.ts), and the heartbeats of this server's live calls.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** Removes web calls whose browser never opened their socket (still registered, created before `before`). */
export async function removeUnopenedWebCalls(db: Kysely<DB>, before: string): Promise<number> {
  const res = await db
    .deleteFrom('call_sessions')
    .where('status', '=', 'registered')
    .where('type', '=', 'web')
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Live calls whose server stopped beating before `heartbeatBefore`, and chats idle since `idleBefore`. */
export function staleLiveCalls(db: Kysely<DB>, at: { heartbeatBefore: string; idleBefore: string }, limit: number) {
  return db
    .selectFrom('call_sessions')
    .selectAll()
    .where('status', '=', 'ongoing')
    .where((eb) =>
      eb.or([
        eb.and([eb('type', 'in', ['web', 'inbound', 'outbound']), eb('heartbeat_at', '<', at.heartbeatBefore)]),
        eb.and([eb('type', '=', 'chat'), eb('updated_at', '<', at.idleBefore)]),
      ]),
    )
    .limit(limit)
    .execute();
}

/** Phone calls whose media stream never connected, registered before `before`. */
export function unreachedPhoneCalls(db: Kysely<DB>, before: string, limit: number) {
  return db
    .selectFrom('call_sessions')
    .selectAll()
    .where('status', '=', 'registered')
    .where('type', 'in', ['inbound', 'outbound'])
    .where('created_at', '<', before)
    .limit(limit)
    .execute();
}

/** The heartbeat of this server's live calls. */
export async function beatLiveCalls(db: Kysely<DB>, ids: string[], now: string): Promise<void> {
  await db
    .updateTable('call_sessions')
    .set({ heartbeat_at: now })
    .where('id', 'in', ids)
    .where('status', '=', 'ongoing')
    .execute();
}
