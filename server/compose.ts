/**
 * The composition root: the one file that knows every module. It
 * - builds the app's dependencies (`composeDeps`): the event bus and its subscriptions (who listens to
 *   whom: server/platform/events.ts), the kinds of upload the sweep knows (server/platform/uploads/kinds.ts);
 * - mounts every module's routes under /api/v1 (`mountModules`, called by server/app.ts);
 * - starts the background work once the app is built (`afterStart`, called by server/main.ts).
 * server/main.ts reads the environment and calls these in order; the tests build their apps with
 * composeDeps (tests/server/helpers.ts buildTestApp). The command-line tools get the events they need from
 * `companyEvents()`.
 */
import type { Hono } from 'hono';
import { agentRoutes, createSampleAgent } from './modules/agents/index.js';
import { auditRoutes } from './modules/audit/index.js';
import { accountRoutes, authRoutes, requireAuth, startSweeper } from './modules/auth/index.js';
import { batchCallRoutes, recipientUploads, startBatchDispatcher } from './modules/batches/index.js';
import { billingRoutes } from './modules/billing/index.js';
import { callRoutes, createAnalysisWorker, queueAnalysis } from './modules/calls/index.js';
import { companyRoutes, createDemoWorkspace, demoEnabled, startRetentionJob } from './modules/company/index.js';
import { contactRoutes } from './modules/contact/index.js';
import { chatRoutes, recoverOwnCalls, startCallSweeper, webCallRoutes } from './modules/conversations/index.js';
import { filesRoutes, photoUploads } from './modules/files/index.js';
import { createKnowledgeWorker, knowledgeBaseRoutes, knowledgeBaseUploads } from './modules/knowledge/index.js';
import { numberRoutes, phoneRoutes, requestRoutes } from './modules/numbers/index.js';
import { carrierConnections, providerRoutes, userRoutes } from './modules/providers/index.js';
import {
  askCarriersAboutCalls,
  numberImportRoutes,
  phoneCallRoutes,
  restoreCarrierNumber,
  sendText,
  telephonyRoutes,
} from './modules/telephony/index.js';
import { voiceRoutes } from './modules/voices/index.js';
import { createWebhookWorker, subscribeWebhooks, webhookRoutes } from './modules/webhooks/index.js';
import type { AppDeps } from './platform/deps.js';
import type { Env } from './platform/env.js';
import { type AppEventBus, EventBus } from './platform/events.js';
import type { AppEnv } from './platform/http/types.js';
import { isLocalPublicUrl } from './platform/net/public-url.js';
import { startUploadSweeper } from './platform/uploads/pending-uploads.js';

// ---------------------------------------------------------------------------------------------
// Dependencies

/** What main.ts (or a test) brings; composeDeps adds what the modules plug in. */
export type BaseDeps = Omit<AppDeps, 'events' | 'uploads'>;

/** The app's dependencies: `base` with a new event bus, its subscriptions, and the kinds of upload. */
export function composeDeps(base: BaseDeps): AppDeps {
  const deps: AppDeps = {
    ...base,
    events: new EventBus(),
    uploads: { recipients: recipientUploads, 'knowledge-base': knowledgeBaseUploads, photo: photoUploads },
    // an agent's send_sms (server/modules/conversations/tool-services.ts) goes out through the telephony module
    texts: { send: (companyId, message, signal) => sendText(deps, companyId, message, signal) },
  };
  subscribeCompanyCreated(deps.events);
  // an ended call's analysis is queued before its webhooks: the order of these two lines
  deps.events.on('call.ended', async (call) => {
    if (call.analyse) await queueAnalysis(deps, call);
  });
  subscribeWebhooks(deps);
  return deps;
}

/** What a new company starts with, written inside its sign-up transaction: the sample agent. */
function subscribeCompanyCreated(events: AppEventBus): void {
  events.on('company.created', createSampleAgent);
}

/** The events a command-line tool that creates companies needs (server/cli/seed.ts): `company.created`'s handlers. */
export function companyEvents(): AppEventBus {
  const events: AppEventBus = new EventBus();
  subscribeCompanyCreated(events);
  return events;
}

// ---------------------------------------------------------------------------------------------
// Routes

/** One `api.route()` per resource (each module's `*.routes.ts`). */
export function mountModules(api: Hono<AppEnv>, deps: AppDeps): void {
  api.route('/account', accountRoutes(deps));
  api.route('/agent', agentRoutes(deps));
  api.route('/auth', authRoutes(deps));
  api.route('/contact', contactRoutes(deps));
  api.route('/files', filesRoutes(deps));
  api.route('/company', companyRoutes(deps));
  api.route('/audit-log', auditRoutes(deps, requireAuth(deps)));
  // the spec's unused GET /provider/voices answers like GET /voices (mounted before /provider)
  api.route('/provider/voices', voiceRoutes(deps));
  api.route('/provider', providerRoutes(deps));
  api.route('/user', userRoutes(deps));
  api.route('/batch-call', batchCallRoutes(deps));
  api.route('/billing', billingRoutes(deps));
  api.route('/phone', phoneRoutes(deps));
  api.route('/request', requestRoutes(deps));
  api.route('/number/import', numberImportRoutes(deps));
  api.route(
    '/number',
    numberRoutes(deps, (companyId, row) => restoreCarrierNumber(deps, companyId, row)),
  );
  // /call: a web call and a phone call start here (each with its own requireAuth), the call history after
  api.route('/call', webCallRoutes(deps));
  api.route('/call', phoneCallRoutes(deps));
  api.route('/call', callRoutes(deps));
  api.route('/chat', chatRoutes(deps));
  api.route('/knowledge-base', knowledgeBaseRoutes(deps));
  api.route('/voices', voiceRoutes(deps));
  api.route('/telephony', telephonyRoutes(deps));
  api.route('/webhook', webhookRoutes(deps));
}

// ---------------------------------------------------------------------------------------------
// Background work

export interface Background {
  stop(): Promise<void>;
}

/**
 * Work that runs once the app is built, before it listens:
 * - the demo workspace on a first start (DEMO, see createDemoWorkspace); `print` writes to the console
 *   (the demo's one-time password goes there, never to the log);
 * - the knowledge-base worker (durable jobs in the database; a restart resumes unfinished ones);
 * - the upload sweeper: removes what uploads interrupted by a crash left (recipient rows, knowledge-base
 *   directories, photo files; server/platform/uploads/pending-uploads.ts), once at start and then every minute.
 * - the expiry sweep (server/modules/auth/sweep.ts): expired sessions, refresh and reset tokens and
 *   rate-limit attempts are deleted now and every 5 minutes;
 * - call recovery (server/modules/conversations/recovery.ts): the calls this server's previous process died
 *   with are stored from their last progress before anything else; the carriers are asked about phone calls
 *   that were in flight (server/modules/telephony/recovery.ts);
 * - the call sweeper (server/modules/conversations/sweep.ts): heartbeats of this server's live calls, and
 *   the end of calls nobody will finish (a dead server's, idle chats);
 * - the webhook worker (server/modules/webhooks/worker.ts): sends the outbox of webhook deliveries, retries,
 *   and takes over deliveries a dead server left mid-send; the post-call analysis worker
 *   (server/modules/calls/analysis.ts);
 * - the batch dispatcher (server/modules/batches/dispatcher.ts), and a warning when companies have a phone
 *   carrier connected while PUBLIC_URL is on localhost (the carriers cannot call this server back).
 */
export async function afterStart(
  deps: AppDeps,
  env: Env,
  print: (text: string) => void = (text) => process.stdout.write(text),
): Promise<Background> {
  if (demoEnabled(env)) {
    try {
      await createDemoWorkspace(deps.db.db, {
        now: deps.clock.now(),
        print,
        events: deps.events,
        logger: deps.logger,
        dataDir: deps.config.dataDir,
      });
    } catch (e) {
      // the app works without the demo: say why it is missing and go on
      deps.logger.error('could not create the demo workspace', { error: e instanceof Error ? e.message : String(e) });
    }
  }
  const knowledgeWorker = createKnowledgeWorker(deps);
  knowledgeWorker.start();
  const uploadSweeper = startUploadSweeper(deps);
  const expirySweeper = startSweeper(deps);
  const retentionJob = startRetentionJob(deps);
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
        retentionJob.stop(),
        callSweeper.stop(),
        webhookWorker.stop(),
        analysisWorker.stop(),
        dispatcher?.stop(),
      ]);
    },
  };
}

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
