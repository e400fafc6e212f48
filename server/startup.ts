import { startSweeper } from './modules/auth/sweep.js';
import { startBatchDispatcher } from './modules/batches/dispatcher.js';
import { createAnalysisWorker } from './modules/calls/analysis.js';
import { createDemoWorkspace, demoEnabled } from './modules/company/workspace.js';
import { recoverOwnCalls } from './modules/conversations/recovery.js';
import { startCallSweeper } from './modules/conversations/sweep.js';
import { createKnowledgeWorker } from './modules/knowledge/kb.worker.js';
import { carrierConnections } from './modules/providers/provider.repo.js';
import { askCarriersAboutCalls } from './modules/telephony/recovery.js';
import { createWebhookWorker } from './modules/webhooks/worker.js';
import type { AppDeps } from './platform/deps.js';
import type { Env } from './platform/env.js';
import { isLocalPublicUrl } from './platform/net/public-url.js';
import { startUploadSweeper } from './platform/uploads/pending-uploads.js';

export interface Background {
  stop(): Promise<void>;
}

/**
 * Work that runs once the app is built, before it listens:
 * - the demo workspace on a first start (DEMO, see createDemoWorkspace); `print` writes to the console
 *   (the demo's one-time password goes there, never to the log);
 * - the knowledge-base worker (durable jobs in the database; a restart resumes unfinished ones), like the
 *   webhook and analysis workers below a leased job (server/platform/jobs/leased-job.ts), and the sweeps
 *   periodic jobs (server/platform/jobs/periodic.ts);
 * - the upload sweeper: removes what uploads interrupted by a crash left (recipient rows, knowledge-base
 *   directories, photo files; server/platform/uploads/pending-uploads.ts), once at start and then every minute.
 * - the expiry sweep (server/modules/auth/sweep.ts): expired sessions, refresh and reset tokens and rate-limit
 *   attempts are deleted now and every 5 minutes;
 * - call recovery (call/recovery.ts): the calls this server's previous process died with are stored from
 *   their last progress before anything else; the carriers are asked about phone calls that were in flight
 *   (telephony/recovery.ts);
 * - the call sweeper (server/modules/conversations/sweep.ts): heartbeats of this server's live calls, and the end of calls nobody
 *   will finish (a dead server's, idle chats);
 * - the webhook worker (server/modules/webhooks/worker.ts): sends the outbox of webhook deliveries, retries,
 *   and takes over deliveries a dead server left mid-send; the post-call analysis worker
 *   (server/modules/calls/analysis.ts);
 * - the batch dispatcher (telephony/dispatcher.ts), and a warning when companies have a phone carrier
 *   connected while PUBLIC_URL is on localhost (the carriers cannot call this server back).
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
  const knowledgeWorker = createKnowledgeWorker(deps);
  knowledgeWorker.start();
  const uploadSweeper = startUploadSweeper(deps);
  const expirySweeper = startSweeper(deps);
  // the calls this server's previous process died with are stored before it takes new ones (same id);
  // the carriers are asked about the phone calls that were in flight meanwhile, in the background
  const startedAt = deps.clock.now();
  await recoverOwnCalls(deps).catch((e) =>
    deps.logger.error('calls of the previous run not recovered', { error: e instanceof Error ? e.message : String(e) }),
  );
  void askCarriersAboutCalls(deps, startedAt).catch((e) =>
    deps.logger.warn('carriers not asked about calls in flight', { error: e instanceof Error ? e.message : String(e) }),
  );
  const callSweeper = startCallSweeper(deps);
  const webhookWorker = createWebhookWorker(deps);
  webhookWorker.start();
  const analysisWorker = createAnalysisWorker(deps);
  analysisWorker.start();
  const dispatcher = deps.calls ? startBatchDispatcher(deps) : undefined;
  await warnUnreachableCallbacks(deps).catch(() => {});
  return {
    stop: async () => {
      await Promise.all([
        knowledgeWorker.stop(),
        uploadSweeper.stop(),
        expirySweeper.stop(),
        callSweeper.stop(),
        webhookWorker.stop(),
        analysisWorker.stop(),
        dispatcher?.stop(),
      ]);
    },
  };
}

/** PUBLIC_URL on this machine (server/platform/net/public-url.ts), kept here for its earlier importers. */
export { isLocalPublicUrl };

/** At start: a warning in the log when a company has a carrier connected and PUBLIC_URL is on localhost. */
export async function warnUnreachableCallbacks(deps: AppDeps) {
  if (!isLocalPublicUrl(deps.config.publicUrl)) return;
  const companies = await carrierConnections(deps);
  if (companies > 0)
    deps.logger.warn(
      'PUBLIC_URL is on localhost: Twilio and Plivo cannot reach this server, so inbound calls and call status will not arrive. Set PUBLIC_URL to the public https address of this server.',
      { publicUrl: deps.config.publicUrl, connections: companies },
    );
}
