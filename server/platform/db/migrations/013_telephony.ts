import type { Kysely } from 'kysely';

/**
 * Phone calls. A call session of a phone call knows its carrier and the carrier's id of the
 * call (Twilio's CallSid, Plivo's CallUUID), so status callbacks find it; `answered_by` keeps the
 * answering-machine detection's answer (a voicemail reached), and `provider_status` the carrier's last
 * status (initiated, ringing, in-progress, completed, busy, no-answer, failed, canceled).
 *
 * Batch calls that dial: `batch_recipients` gains the queue's columns (state queued | calling | completed |
 * busy | no_answer | failed | voicemail, attempts, next_attempt_at, the lease, the call), `batch_calls` its
 * retry policy (attempts, delay).
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

  // the batch's recipients are the dispatcher's durable queue: each is claimed with a lease before it is
  // dialled, and keeps its attempts, the next attempt's time, its call and its outcome
  await db.schema
    .alterTable('batch_recipients')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
    .execute();
  await db.schema
    .alterTable('batch_recipients')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('batch_recipients').addColumn('next_attempt_at', 'text').execute();
  await db.schema.alterTable('batch_recipients').addColumn('lease_owner', 'text').execute();
  await db.schema.alterTable('batch_recipients').addColumn('lease_until', 'text').execute();
  await db.schema.alterTable('batch_recipients').addColumn('call_id', 'text').execute();
  await db.schema.createIndex('batch_recipients_batch_state').on('batch_recipients').columns(['batch_id', 'state']).execute();
  await db.schema
    .alterTable('batch_calls')
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(2))
    .execute();
  await db.schema
    .alterTable('batch_calls')
    .addColumn('retry_delay_s', 'integer', (c) => c.notNull().defaultTo(120))
    .execute();
}
