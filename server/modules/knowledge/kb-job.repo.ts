/**
 * The SQL of the knowledge-base worker (kb.worker.ts) beyond its job rows, which the leased-job library
 * claims and settles (server/platform/jobs/jobs.repo.ts): the base it processes, its status, its chunks.
 * Every statement is scoped to the job's company.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { yieldToLoop } from '../../platform/jobs/cooperative.js';

const CHUNKS_PER_INSERT = 200;

export function jobBase(db: Kysely<DB>, companyId: string, knowledgeBaseId: string) {
  return db
    .selectFrom('knowledge_bases')
    .selectAll()
    .where('id', '=', knowledgeBaseId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

export async function setBaseStatus(
  db: Kysely<DB>,
  companyId: string,
  knowledgeBaseId: string,
  set: { status: 'pending' | 'processing' | 'complete' | 'failed'; error_message?: string | null; chunk_count?: number },
  now: string,
): Promise<void> {
  await db
    .updateTable('knowledge_bases')
    .set({ ...set, updated_at: now })
    .where('id', '=', knowledgeBaseId)
    .where('company_id', '=', companyId)
    .execute();
}

/** Replaces the base's chunks (inside the transaction that completes it); answers how many. */
export async function replaceChunks(
  trx: Kysely<DB>,
  companyId: string,
  knowledgeBaseId: string,
  chunks: string[][],
): Promise<number> {
  await trx
    .deleteFrom('knowledge_base_chunks')
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .where('company_id', '=', companyId)
    .execute();
  const rows = chunks.flatMap((pieces, sourceIndex) => pieces.map((content) => ({ sourceIndex, content })));
  for (let i = 0; i < rows.length; i += CHUNKS_PER_INSERT) {
    // SQLite runs on the event loop: let it turn between statements (other queries wait for the
    // transaction either way; timers and sockets need not)
    if (i > 0) await yieldToLoop();
    await trx
      .insertInto('knowledge_base_chunks')
      .values(
        rows.slice(i, i + CHUNKS_PER_INSERT).map((r, j) => ({
          knowledge_base_id: knowledgeBaseId,
          position: i + j,
          company_id: companyId,
          source_index: r.sourceIndex,
          content: r.content,
        })),
      )
      .execute();
  }
  return rows.length;
}
