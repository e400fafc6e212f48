import type { Kysely } from 'kysely';

/**
 * Why a batch recipient's last dial was refused or failed before the carrier rang it (for example the
 * number's carrier not connected), as the batch detail, `GET /batch-call/{id}` and the recipients export
 * show it (server/modules/batches/dispatcher.ts writes it). Null while none. And whether a completed batch
 * ended with every recipient failed (0/1, set when it completes), so that it is not shown as a success.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('batch_recipients').addColumn('failure_reason', 'text').execute();
  await db.schema
    .alterTable('batch_calls')
    .addColumn('all_failed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('batch_calls').dropColumn('all_failed').execute();
  await db.schema.alterTable('batch_recipients').dropColumn('failure_reason').execute();
}
