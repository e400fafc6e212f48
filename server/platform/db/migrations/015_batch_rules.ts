import type { Kysely } from 'kysely';

/**
 * The dispatcher's rules.
 *
 * `batch_calls`: the calling window (JSON `{days, start, end}`, null = any time), the batch's IANA time zone
 * (recipients whose number tells no zone are called in it), why the batch paused itself (null after a
 * manual pause and after resume), and when it was last resumed (failures before that do not pause it
 * again).
 *
 * `batch_recipients`: the recipient's time zone derived from the number at upload (null = the batch's),
 * and when its last attempt finished (the self-pause counts the finished and failed calls of the last
 * two minutes).
 *
 * `batch_dial_pacing`: one row per company, the earliest time (ms since the epoch) of its next new call,
 * taken with a conditional update, so several servers sharing one database keep one pace per company.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('batch_calls').addColumn('calling_window', 'text').execute();
  await db.schema
    .alterTable('batch_calls')
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();
  await db.schema.alterTable('batch_calls').addColumn('paused_reason', 'text').execute();
  await db.schema.alterTable('batch_calls').addColumn('resumed_at', 'text').execute();

  await db.schema.alterTable('batch_recipients').addColumn('time_zone', 'text').execute();
  await db.schema.alterTable('batch_recipients').addColumn('finished_at', 'text').execute();
  await db.schema
    .createIndex('batch_recipients_batch_finished')
    .on('batch_recipients')
    .columns(['batch_id', 'finished_at'])
    .execute();

  await db.schema
    .createTable('batch_dial_pacing')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    .addColumn('next_dial_ms', 'bigint', (c) => c.notNull())
    .execute();
}
