import type { Kysely } from 'kysely';

/**
 * Numbers imported from the company's own carrier account (Phone Numbers > 'Import from Twilio' /
 * 'Import from Plivo'): the carrier's handle of the number (Twilio's IncomingPhoneNumber Sid, Plivo's number)
 * and what the number was set to before Parley pointed it at itself (the carrier's JSON), restored when the
 * number is released. Both null for numbers added by hand or from the pool.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('phone_numbers').addColumn('carrier_ref', 'text').execute();
  await db.schema.alterTable('phone_numbers').addColumn('carrier_previous', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('phone_numbers').dropColumn('carrier_previous').execute();
  await db.schema.alterTable('phone_numbers').dropColumn('carrier_ref').execute();
}
