/**
 * Knowledge search for a caller's turn, as the engine sees it: a function given the company, the agent's
 * chosen knowledge bases and what the caller said, answering the chunks that best match. The engine has
 * no SQL: whoever starts a call injects it (server/modules/knowledge/kb.search.ts searches the database).
 */

export interface KnowledgeHit {
  knowledgeBaseId: string;
  content: string;
}

export type KnowledgeSearch = (companyId: string, knowledgeBaseIds: readonly string[], text: string) => Promise<KnowledgeHit[]>;
