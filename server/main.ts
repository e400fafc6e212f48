import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { afterStart, composeDeps } from './compose.js';
import { createHttpServer } from './http-server.js';
import { createCallRuntime, serverIdOf, settleCalls } from './modules/conversations/index.js';
import { loadSecrets } from './platform/crypto/keys.js';
import { openDatabase } from './platform/db/index.js';
import { realHttpClient, systemClock } from './platform/deps.js';
import { EnvError, jobLimitsOfEnv, parseEnv } from './platform/env.js';
import { REFUSED_LOGIN_DELAY_MS } from './platform/http/ratelimit.js';
import { createEventLoopMonitor } from './platform/log/event-loop.js';
import { createLogger } from './platform/log/logger.js';
import { openFilesLimit, openFilesProblem } from './platform/log/open-files.js';
import { outboxMailer, smtpMailer } from './platform/mail.js';
import { createProviderRegistry } from './voice/providers/registry.js';
import { SMALLEST_API_URL } from './voice/providers/smallest/key-check.js';
import { toolUrlsOf, toolUrlVariables } from './voice/tools/tool-urls.js';

const startedAt = performance.now();

// the providers the call engine runs; their API bases come from the environment variables they name
const providers = createProviderRegistry();

let env: ReturnType<typeof parseEnv>;
try {
  env = parseEnv(process.env, [...providers.urlVariables().map((u) => u.env), ...toolUrlVariables(), SMALLEST_API_URL.env]);
} catch (e) {
  if (e instanceof EnvError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  throw e;
}

// too few open files and the calls of every company fail together (server/platform/log/open-files.ts)
const openFiles = openFilesLimit();
const openFilesTooFew = openFilesProblem(openFiles, env.MIN_OPEN_FILES);
if (openFilesTooFew) {
  process.stderr.write(`${openFilesTooFew}\n`);
  process.exit(1);
}

const logger = createLogger(env.LOG_LEVEL);
const dataDir = path.resolve(env.DATA_DIR);
fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });

const here = path.dirname(fileURLToPath(import.meta.url));
const staticCandidates = [path.resolve(here, '../client'), path.resolve(here, '../dist/client')];
const staticDir = staticCandidates.find((d) => fs.existsSync(path.join(d, 'index.html')));

const database = await openDatabase({
  url: env.DATABASE_URL,
  sqliteFile: path.join(dataDir, 'parley.sqlite'),
});
const publicUrl = env.PUBLIC_URL ?? `http://localhost:${env.PORT}`;
const mailer = env.SMTP_URL ? smtpMailer(env.SMTP_URL) : outboxMailer(dataDir, logger);
const eventLoop = createEventLoopMonitor();
// the same id across restarts: the calls a killed process left are this server's to store at start
const calls = createCallRuntime(providers, serverIdOf(dataDir));
const deps = composeDeps({
  db: database,
  clock: systemClock,
  mailer,
  secrets: loadSecrets(dataDir, env),
  config: {
    dataDir,
    publicUrl,
    staticDir,
    requestAutoGrant: env.REQUEST_AUTO_GRANT === 'true',
    trustProxy: env.TRUST_PROXY,
    refusedLoginDelayMs: REFUSED_LOGIN_DELAY_MS,
    providerUrls: {
      ...providers.urlsOf(env.apiBases),
      ...toolUrlsOf({ ...env.apiBases, WHATSAPP_API_URL: env.WHATSAPP_API_URL }),
      // Smallest's cards are tried against it (server/modules/providers/key-check.ts); no call runs on it yet
      smallest: env.apiBases[SMALLEST_API_URL.env] ?? SMALLEST_API_URL.default,
    },
    telephonyUrls: { twilio: env.TWILIO_API_URL, plivo: env.PLIVO_API_URL },
    allowPrivateProviderUrls: env.ALLOW_PRIVATE_PROVIDER_URLS === 'true',
    allowPrivateWebhookUrls: env.ALLOW_PRIVATE_WEBHOOK_URLS === 'true',
    allowPrivateToolUrls: env.ALLOW_PRIVATE_TOOL_URLS === 'true',
    signUpsPerHour: env.SIGNUPS_PER_HOUR,
    batchDialsPerSecond: env.BATCH_DIALS_PER_SECOND,
    callPingMs: env.CALL_PING_SECONDS === undefined ? undefined : env.CALL_PING_SECONDS * 1000,
    callSocketsPerCompany: env.CALL_SOCKETS_PER_COMPANY,
    jobLimits: jobLimitsOfEnv(env),
  },
  logger,
  http: realHttpClient,
  calls,
  eventLoop,
});
const app = createApp(deps);
const background = await afterStart(deps, env);

const { server, closeSockets } = createHttpServer(app, deps);
server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  const ms = Math.round(performance.now() - startedAt);
  logger.info('Parley is ready', {
    url: `http://localhost:${port}`,
    db: database.kind,
    ms,
    openFiles: String(openFiles ?? 'unknown'),
  });
  process.stdout.write(`\n  Parley is running at http://localhost:${port}  (database: ${database.kind})\n\n`);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  await background.stop();
  // live calls end (their sockets close, each call is stored as ended)
  closeSockets();
  await settleCalls(calls);
  // stop accepting, let requests in flight finish, then close the database
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await database.close();
  eventLoop.stop();
  process.exit(0);
}
// A promise nobody awaited that failed (a client that went away mid-stream, a provider socket torn down) must
// not end every live call on this server: it is logged (its message and stack, never a request's data) and the
// server goes on. An exception thrown past every handler still ends the process, after saying what it was.
process.on('unhandledRejection', (reason) => {
  logger.warn('unhandled rejection', {
    reason: reason instanceof Error ? reason.message : String(reason),
    stack: reason instanceof Error ? reason.stack : undefined,
  });
});
process.on('uncaughtExceptionMonitor', (error) => {
  logger.error('uncaught exception', { reason: error.message, stack: error.stack });
});
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
