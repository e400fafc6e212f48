import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Agents. `doc` is the stored agent document (JSON text: name, prompt, message, settings, editor;
 * see src/api/contract/agent/save.ts); the other columns are projections of it that the list filters
 * and sorts on. `agent_name_lower` serves the case-insensitive search and the name sort on both
 * databases. On PostgreSQL the sort columns use the "C" collation so both databases order names the
 * same way (byte order of the lowercased text) and the indexes serve ORDER BY directly.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const sortable = (c: ColumnDefinitionBuilder) => (pg ? c.modifyEnd(sql`collate "C"`) : c);
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('agent_name', 'text', (c) => c.notNull())
    .addColumn('agent_name_lower', 'text', (c) => sortable(c.notNull()))
    .addColumn('voice_id', 'text', (c) => sortable(c.notNull()))
    .addColumn('voice_model', 'text', (c) => sortable(c.notNull()))
    .addColumn('llm_model', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // last: SQLite reads the columns before a large value without walking its overflow pages
    .addColumn('doc', 'text', (c) => c.notNull())
    .execute();
  // One index per first sort key, in the list's total order: the key, then the most recent update,
  // then the id (totalOrder in server/modules/agents/agent.repo.ts), so every single-key sort, the default order and name + newest
  // first are read straight off an index in either direction. The trailing sortable columns make
  // every index covering, so other multi-key sorts never touch the table rows (where `doc` lives).
  const index = (name: string, order: string[]) => {
    const rest = ['agent_name_lower', 'voice_id', 'voice_model', 'created_at', 'updated_at'].filter(
      (c) => !order.some((o) => o.split(' ')[0] === c),
    );
    return db.schema
      .createIndex(name)
      .on('agents')
      .columns(['company_id', ...order, ...rest])
      .execute();
  };
  await index('agents_company_name_idx', ['agent_name_lower', 'updated_at desc', 'id desc']);
  await index('agents_company_updated_idx', ['updated_at', 'id']);
  await index('agents_company_created_idx', ['created_at', 'id']);
  await index('agents_company_voice_idx', ['voice_id', 'updated_at desc', 'id desc']);
  await index('agents_company_voice_model_idx', ['voice_model', 'updated_at desc', 'id desc']);
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agents').execute();
}
