import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The end of a caller's number, searchable like its start (the call history's search box): `calls`
 * gains `from_digits_rev`, the digits of `from_number` last first ('+14155550123' -> '32105551414'),
 * so a number's last digits are a prefix of it and an index range answers "ends with 0123" on a million
 * calls the way `calls_company_from_time_idx` answers "starts with +1415". Written by insertCalls;
 * existing rows are filled here. The index carries the same trailing columns as the number's.
 */
/** The digits of a number, last first: spelled out here (not imported) so that this migration stays what it was. */
const reversedDigits = (number: string) => [...number.replace(/\D/g, '')].reverse().join('');

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('calls')
    .addColumn('from_digits_rev', 'text', (c) => {
      const column = c.notNull().defaultTo('');
      return pg ? column.modifyEnd(sql`collate "C"`) : column;
    })
    .execute();
  if (pg) {
    await sql`update calls set from_digits_rev = reverse(regexp_replace(from_number, '[^0-9]', '', 'g'))`.execute(db);
  } else {
    // SQLite has no reverse(): the rows are read and written back in batches, in id order
    let after = '';
    for (;;) {
      const rows: { id: string; from_number: string }[] = await db
        .selectFrom('calls')
        .select(['id', 'from_number'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(500)
        .execute();
      if (rows.length === 0) break;
      const cases = sql.join(
        rows.map((r) => sql`when ${r.id} then ${reversedDigits(r.from_number)}`),
        sql` `,
      );
      await sql`update calls set from_digits_rev = case id ${cases} end where id in (${sql.join(rows.map((r) => r.id))})`.execute(
        db,
      );
      after = rows[rows.length - 1]!.id;
    }
  }
  await db.schema
    .createIndex('calls_company_from_rev_time_idx')
    .on('calls')
    .columns(['company_id', 'from_digits_rev', 'time desc', 'id desc', 'status', 'type', 'phone_number'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('calls_company_from_rev_time_idx').execute();
  await db.schema.alterTable('calls').dropColumn('from_digits_rev').execute();
}
