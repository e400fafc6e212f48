/**
 * Knowledge search for a caller's turn: the chunks of the agent's chosen knowledge bases that best match
 * what the caller said, by full-text search in the database (FTS5 with bm25 on SQLite, a GIN-indexed
 * tsvector with ts_rank on PostgreSQL; migration 012). The query is the caller's words, reduced to at most
 * MAX_TERMS plain terms OR-ed together (no operator of either engine can be injected), scoped to the
 * company and to the chosen bases.
 */
import { type Kysely, sql } from 'kysely';
import type { DbKind } from '../../platform/db/index.js';
import type { DB } from '../../platform/db/schema.js';

export const KNOWLEDGE_CHUNKS_PER_TURN = 3;
const MAX_TERMS = 24;
const MIN_TERM = 2;
const MAX_TERM = 40;

/** The searchable terms of a text: runs of letters and digits, lower-cased, de-duplicated, bounded. */
export function searchTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const m of text
    .slice(0, 2000)
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}]+/gu)) {
    const t = m[0];
    if (t.length >= MIN_TERM && t.length <= MAX_TERM) terms.add(t);
    if (terms.size >= MAX_TERMS) break;
  }
  return [...terms];
}

export interface KnowledgeHit {
  knowledgeBaseId: string;
  content: string;
}

export async function searchKnowledge(
  db: Kysely<DB>,
  kind: DbKind,
  companyId: string,
  knowledgeBaseIds: readonly string[],
  text: string,
  limit = KNOWLEDGE_CHUNKS_PER_TURN,
): Promise<KnowledgeHit[]> {
  const terms = searchTerms(text);
  if (terms.length === 0 || knowledgeBaseIds.length === 0) return [];
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
