import type { Kysely } from 'kysely';

/**
 * Why a batch recipient's last dial was refused or failed before the carrier rang it (for example the
 * number's carrier not connected), as the batch detail, `GET /batch-call/{id}` and the recipients export
 * show it (server/modules/batches/dispatcher.ts writes it). Null while none.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('batch_recipients').addColumn('failure_reason', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('batch_recipients').dropColumn('failure_reason').execute();
}
