import type { Kysely } from 'kysely';

/**
 * Phone calls (issue 19). A call session of a phone call knows its carrier and the carrier's id of the
 * call (Twilio's CallSid, Plivo's CallUUID), so status callbacks find it; `answered_by` keeps the
 * answering-machine detection's answer (a voicemail reached), and `provider_status` the carrier's last
 * status (initiated, ringing, in-progress, completed, busy, no-answer, failed, canceled).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('call_sessions')
    .addColumn('provider', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('call_sessions').addColumn('provider_call_id', 'text').execute();
  await db.schema.alterTable('call_sessions').addColumn('provider_status', 'text').execute();
  await db.schema.alterTable('call_sessions').addColumn('answered_by', 'text').execute();
  await db.schema
    .createIndex('call_sessions_provider_call')
    .on('call_sessions')
    .columns(['provider', 'provider_call_id'])
    .execute();
}
