import type { Kysely } from 'kysely';

/**
 * The destination policy of outbound calls (docs/telephony.md, "Where calls may go"):
 * `company_billing.allowed_countries`, the ISO 3166 alpha-2 codes a company may call, comma-separated
 * ('' = the countries of the company's own numbers), set on Billing > Limits.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('company_billing')
    .addColumn('allowed_countries', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('company_billing').dropColumn('allowed_countries').execute();
}
