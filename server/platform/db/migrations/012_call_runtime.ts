import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The call runtime.
 *
 * `call_sessions`: one row per conversation the engine runs (web call, chat, and phone calls next), from
 * the moment it is created to its end: the agent it used (a snapshot, since a test call may run unsaved
 * edits), its transcript, per-turn latency, measured usage, cost and recording. When a call ends its
 * summary is also appended to `calls` (through insertCalls, so the call history's counts stay exact), and
 * the call detail view reads both. The one-time token of a web call's socket is kept as a SHA-256 hash.
 *
 * Knowledge search: the chunks of the knowledge bases get a full-text index, FTS5 on SQLite (an
 * external-content table kept in step by triggers) and a GIN index over to_tsvector('simple', content)
 * on PostgreSQL ('simple': no stemming, so every agent language is searched the same way).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('call_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('account_id', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('agent_name', 'text', (c) => c.notNull())
    .addColumn('agent', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('dynamic_variables', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('disconnection_reason', 'text', (c) => c.notNull())
    .addColumn('error_message', 'text')
    .addColumn('transcript', 'text', (c) => c.notNull())
    .addColumn('latency', 'text', (c) => c.notNull())
    .addColumn('usage', 'text', (c) => c.notNull())
    .addColumn('cost', 'real', (c) => c.notNull())
    .addColumn('recording', 'text')
    .addColumn('token_hash', 'text')
    .addColumn('token_expires_at', 'text')
    .addColumn('server_id', 'text')
    .addColumn('heartbeat_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('call_sessions_company_status').on('call_sessions').columns(['company_id', 'status']).execute();
  await db.schema.createIndex('call_sessions_status_heartbeat').on('call_sessions').columns(['status', 'heartbeat_at']).execute();

  if (pg) {
    await sql`create index knowledge_base_chunks_fts on knowledge_base_chunks using gin (to_tsvector('simple', content))`.execute(
      db,
    );
  } else {
    await sql`create virtual table knowledge_base_chunks_fts using fts5(content, content='knowledge_base_chunks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`.execute(
      db,
    );
    await sql`create trigger knowledge_base_chunks_fts_ai after insert on knowledge_base_chunks begin
      insert into knowledge_base_chunks_fts(rowid, content) values (new.rowid, new.content);
    end`.execute(db);
    await sql`create trigger knowledge_base_chunks_fts_ad after delete on knowledge_base_chunks begin
      insert into knowledge_base_chunks_fts(knowledge_base_chunks_fts, rowid, content) values ('delete', old.rowid, old.content);
    end`.execute(db);
    await sql`create trigger knowledge_base_chunks_fts_au after update on knowledge_base_chunks begin
      insert into knowledge_base_chunks_fts(knowledge_base_chunks_fts, rowid, content) values ('delete', old.rowid, old.content);
      insert into knowledge_base_chunks_fts(rowid, content) values (new.rowid, new.content);
    end`.execute(db);
    await sql`insert into knowledge_base_chunks_fts(knowledge_base_chunks_fts) values ('rebuild')`.execute(db);
  }
}
