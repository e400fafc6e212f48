import type { Env } from './env.js';
import type { AppDeps } from './lib/deps.js';
import { createDemoWorkspace, demoEnabled } from './services/workspace.js';

export interface Background {
  stop(): Promise<void>;
}

/**
 * Work that runs once the app is built, before it listens: the demo workspace on a first start (DEMO,
 * see createDemoWorkspace), background job runners. Later issues add theirs. `print` writes to the
 * console (the demo's one-time password goes there, never to the log).
 */
export async function afterStart(
  deps: AppDeps,
  env: Env,
  print: (text: string) => void = (text) => process.stdout.write(text),
): Promise<Background> {
  if (demoEnabled(env)) {
    try {
      await createDemoWorkspace(deps.db.db, { now: deps.clock.now(), print, logger: deps.logger });
    } catch (e) {
      // the app works without the demo: say why it is missing and go on
      deps.logger.error('could not create the demo workspace', { error: e instanceof Error ? e.message : String(e) });
    }
  }
  return { stop: async () => {} };
}
