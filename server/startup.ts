import type { Env } from './env.js';
import type { AppDeps } from './lib/deps.js';

export interface Background {
  stop(): Promise<void>;
}

/** Work that runs once the app is built: demo data, background job runners. Later issues add theirs. */
export async function afterStart(deps: AppDeps, env: Env): Promise<Background> {
  void deps;
  void env;
  return { stop: async () => {} };
}
