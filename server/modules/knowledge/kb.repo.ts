import path from 'node:path';
import type { KnowledgeBaseStatus } from '@contract/agent/records.js';
import type { KbFileKind, KnowledgeBase, KnowledgeBaseListQuery } from '@contract/knowledge-base.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import { lowerContains } from '../../platform/db/contains.js';
import type { DbKind } from '../../platform/db/index.js';
import { newestFirstPage } from '../../platform/db/page.js';
import type { DB, KnowledgeBasesTable } from '../../platform/db/schema.js';

/** A source as stored: `stored` (the file's name on disk) never leaves the server. */
export type StoredKbSource =
  | { kind: 'file'; filename: string; type: string; file_size: number; file_kind: KbFileKind; stored: string }
  | { kind: 'text'; filename: string; type: 'text'; content: string }
  | { kind: 'url'; filename: string; type: 'url'; file_url: string };

type KbRow = Selectable<KnowledgeBasesTable>;

/** Where a knowledge base's files live: DATA_DIR/knowledge-base/<company>/<knowledge base>/. */
export const kbDir = (dataDir: string, companyId: string, kbId: string) => path.join(companyKbDir(dataDir, companyId), kbId);
export const companyKbDir = (dataDir: string, companyId: string) => path.join(dataDir, 'knowledge-base', companyId);

export const parseSources = (row: Pick<KbRow, 'sources'>): StoredKbSource[] => JSON.parse(row.sources) as StoredKbSource[];

/** The API shape; `withContent` adds the text of text sources (the single read, not the list). */
export function rowToKnowledgeBase(row: KbRow, withContent = false): KnowledgeBase {
  return {
    knowledge_base_id: row.id,
    knowledge_base_name: row.name,
    knowledge_base_sources: parseSources(row).map((s) => {
      if (s.kind === 'file') return { filename: s.filename, type: s.type, file_size: s.file_size };
      if (s.kind === 'url') return { filename: s.filename, type: s.type, file_url: s.file_url };
      return withContent ? { filename: s.filename, type: s.type, content: s.content } : { filename: s.filename, type: s.type };
    }),
    enable_auto_refresh: row.enable_auto_refresh === 1,
    status: row.status as KnowledgeBaseStatus,
    ...(row.error_message ? { error_message: row.error_message } : {}),
    chunk_count: row.chunk_count,
    user_modified_timestamp: Date.parse(row.user_modified_at),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewKnowledgeBase {
  id: string;
  companyId: string;
  accountId: string;
  name: string;
  enableAutoRefresh: boolean;
  sources: StoredKbSource[];
  now: Date;
}

/**
 * Inserts the knowledge base ('pending') and its queued job in one transaction; `alsoInTransaction` runs
 * in it too (the route stores its idempotent answer there).
 */
export async function insertKnowledgeBase(
  db: Kysely<DB>,
  kb: NewKnowledgeBase,
  alsoInTransaction: (trx: Kysely<DB>, row: KbRow) => Promise<void> = async () => {},
): Promise<KbRow> {
  const at = kb.now.toISOString();
  const row: KbRow = {
    id: kb.id,
    company_id: kb.companyId,
    account_id: kb.accountId,
    name: kb.name,
    name_lower: kb.name.toLowerCase(),
    status: 'pending',
    enable_auto_refresh: kb.enableAutoRefresh ? 1 : 0,
    sources: JSON.stringify(kb.sources),
    error_message: null,
    chunk_count: 0,
    user_modified_at: at,
    created_at: at,
    updated_at: at,
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('knowledge_bases').values(row).execute();
    await trx
      .insertInto('knowledge_base_jobs')
      .values({
        id: newId(kb.now),
        knowledge_base_id: kb.id,
        company_id: kb.companyId,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        lease_until: null,
        worker: null,
        error: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await alsoInTransaction(trx, row);
  });
  return row;
}

/** One page of a company's knowledge bases, newest first. */
export async function listKnowledgeBases(db: Kysely<DB>, companyId: string, q: KnowledgeBaseListQuery) {
  let base = db.selectFrom('knowledge_bases').where('company_id', '=', companyId);
  if (q.search) base = base.where(lowerContains(db, 'name_lower', q.search));
  const { rows, total } = await newestFirstPage(base, q);
  return { knowledge_bases: rows.map((r) => rowToKnowledgeBase(r)), total };
}

export function findKnowledgeBase(db: Kysely<DB>, companyId: string, id: string) {
  return db.selectFrom('knowledge_bases').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
}

/** Deletes the base; its chunks and job go with it (foreign keys cascade, and explicitly for SQLite). */
export async function deleteKnowledgeBase(db: Kysely<DB>, companyId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('knowledge_base_chunks')
      .where('knowledge_base_id', '=', id)
      .where('company_id', '=', companyId)
      .execute();
    await trx.deleteFrom('knowledge_base_jobs').where('knowledge_base_id', '=', id).where('company_id', '=', companyId).execute();
    const res = await trx
      .deleteFrom('knowledge_bases')
      .where('id', '=', id)
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  });
}

/** Which of `ids` are knowledge bases of the company (an agent may link only its own). */
export async function ownKnowledgeBaseIds(db: Kysely<DB>, companyId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('knowledge_bases')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Whether the knowledge base `id` exists, whatever its company (the upload sweep leaves its directory). */
export async function knowledgeBaseExists(db: Kysely<DB>, id: string): Promise<boolean> {
  return (await db.selectFrom('knowledge_bases').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * The chunks of the company's chosen bases that match any of `terms` (plain words, never operators), best
 * first: ts_rank over a tsvector on PostgreSQL, bm25 over FTS5 on SQLite (see ./kb.search.ts).
 */
export async function matchingChunks(
  db: Kysely<DB>,
  kind: DbKind,
  companyId: string,
  knowledgeBaseIds: readonly string[],
  terms: readonly string[],
  limit: number,
): Promise<{ knowledgeBaseId: string; content: string }[]> {
  const ids = sql.join(knowledgeBaseIds.map((id) => sql`${id}`));
  if (kind === 'postgres') {
    const query = terms.join(' | ');
    const { rows } = await sql<{ knowledge_base_id: string; content: string }>`
      select knowledge_base_id, content from knowledge_base_chunks
      where company_id = ${companyId} and knowledge_base_id in (${ids})
        and to_tsvector('simple', content) @@ to_tsquery('simple', ${query})
      order by ts_rank(to_tsvector('simple', content), to_tsquery('simple', ${query})) desc, knowledge_base_id, position
      limit ${limit}`.execute(db);
    return rows.map((r) => ({ knowledgeBaseId: r.knowledge_base_id, content: r.content }));
  }
  const match = terms.map((t) => `"${t}"`).join(' OR ');
  const { rows } = await sql<{ knowledge_base_id: string; content: string }>`
    select c.knowledge_base_id, c.content from knowledge_base_chunks_fts f
    join knowledge_base_chunks c on c.rowid = f.rowid
    where knowledge_base_chunks_fts match ${match}
      and c.company_id = ${companyId} and c.knowledge_base_id in (${ids})
    order by bm25(knowledge_base_chunks_fts), c.knowledge_base_id, c.position
    limit ${limit}`.execute(db);
  return rows.map((r) => ({ knowledgeBaseId: r.knowledge_base_id, content: r.content }));
}
