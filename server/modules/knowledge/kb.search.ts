/**
 * Knowledge search for a caller's turn: the chunks of the agent's chosen knowledge bases that best match
 * what the caller said, by full-text search in the database (FTS5 with bm25 on SQLite, a GIN-indexed
 * tsvector with ts_rank on PostgreSQL; server/platform/db/migrations/012_call_runtime.ts). The query is
 * the caller's words, reduced to at most MAX_TERMS plain terms OR-ed together (no operator of either
 * engine can be injected), scoped to the company and to the chosen bases. The engine gets it as its
 * `KnowledgeSearch` (server/voice/engine/knowledge.ts).
 */
import type { AppDeps } from '../../platform/deps.js';
import type { KnowledgeHit, KnowledgeSearch } from '../../voice/engine/knowledge.js';
import { matchingChunks } from './kb.repo.js';

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

export async function searchKnowledge(
  deps: Pick<AppDeps, 'db'>,
  companyId: string,
  knowledgeBaseIds: readonly string[],
  text: string,
  limit = KNOWLEDGE_CHUNKS_PER_TURN,
): Promise<KnowledgeHit[]> {
  const terms = searchTerms(text);
  if (terms.length === 0 || knowledgeBaseIds.length === 0) return [];
  return matchingChunks(deps.db.db, deps.db.kind, companyId, knowledgeBaseIds, terms, limit);
}

/** The engine's knowledge search over this app's database. */
export const knowledgeSearch =
  (deps: Pick<AppDeps, 'db'>): KnowledgeSearch =>
  (companyId, knowledgeBaseIds, text) =>
    searchKnowledge(deps, companyId, knowledgeBaseIds, text);
