import type { Env } from './env.js';
import type { AppDeps } from './lib/deps.js';
import { createKnowledgeWorker } from './routes/knowledge-base/kb.worker.js';

export interface Background {
  stop(): Promise<void>;
}

/**
 * Work that runs once the app is built: demo data, background job runners. Later issues add theirs.
 * - the knowledge-base worker (durable jobs in the database; a restart resumes unfinished ones).
 */
export async function afterStart(deps: AppDeps, env: Env): Promise<Background> {
  void env;
  const knowledgeWorker = createKnowledgeWorker(deps);
  knowledgeWorker.start();
  return {
    stop: async () => {
      await knowledgeWorker.stop();
    },
  };
}
