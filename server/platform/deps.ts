import type { AppDatabase } from './db/index.js';
import type { AppEventBus } from './events.js';
import type { JobLimits } from './jobs/limits.js';
import type { WakeChannel } from './jobs/wake.js';
import type { EventLoopMonitor } from './log/event-loop.js';
import type { Logger } from './log/logger.js';
import type { UploadKinds } from './uploads/kinds.js';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * Outbound HTTP (provider APIs such as ElevenLabs' voice list). Injected so tests answer with a local fake;
 * `realHttpClient` (the default when a deps object has none) is the platform fetch with a 10 s time limit.
 */
export interface HttpClient {
  fetch(url: string, init?: RequestInit): Promise<Response>;
}
export const OUTBOUND_TIMEOUT_MS = 10_000;
export const realHttpClient: HttpClient = {
  fetch: (url, init) => fetch(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(OUTBOUND_TIMEOUT_MS) }),
};

export interface Secrets {
  /** 32-byte HS256 key for access tokens */
  jwtKey: Uint8Array;
  /** 32-byte master key wrapping per-secret data keys (AES-256-GCM) */
  masterKey: Uint8Array;
}

export interface AppConfig {
  dataDir: string;
  publicUrl: string;
  /** directory of the built SPA (dist/client); undefined = API only */
  staticDir?: string | undefined;
  requestAutoGrant?: boolean;
  /**
   * Number of reverse proxies in front of the server whose X-Forwarded-For is trusted (TRUST_PROXY).
   * 0 / undefined: the client IP is the socket's peer address.
   */
  trustProxy?: number;
  /**
   * How long a login refused with 429 waits before its answer (a tarpit: a client flooding wrong
   * passwords past its limit gets one cheap answer per connection and delay, not thousands a second).
   * main.ts sets REFUSED_LOGIN_DELAY_MS; undefined = answer at once (tests).
   */
  refusedLoginDelayMs?: number;
  /**
   * Each provider's API base, by provider id (server/voice/providers/registry.ts `urlsOf`: OPENAI_BASE_URL,
   * DEEPGRAM_API_URL... when set, else the provider's own; `defaultProviderUrls()` in tests).
   */
  providerUrls: Readonly<Record<string, string>>;
  /** the phone carriers' REST origins (TWILIO_API_URL, PLIVO_API_URL); unset = the carriers' own */
  telephonyUrls?: { twilio?: string | undefined; plivo?: string | undefined };
  /** ALLOW_PRIVATE_PROVIDER_URLS: a company's own Base URL may resolve to a private address (default false) */
  allowPrivateProviderUrls?: boolean;
  /** ALLOW_PRIVATE_WEBHOOK_URLS: a webhook URL may resolve to a private address (default false) */
  allowPrivateWebhookUrls?: boolean;
  /** ALLOW_PRIVATE_TOOL_URLS: a custom function's or MCP server's URL may resolve to a private address (default false) */
  allowPrivateToolUrls?: boolean;
  /** Sign-up attempts allowed per client IP in a sliding hour (SIGNUPS_PER_HOUR); undefined = LIMITS.signUpPerIp.max (20). */
  signUpsPerHour?: number;
  /** An upload answered 408 after this long without a byte; undefined = UPLOAD_IDLE_MS (30 s). */
  uploadIdleMs?: number;
  /** New batch calls per second per company, across all servers (BATCH_DIALS_PER_SECOND); undefined = 1. */
  batchDialsPerSecond?: number | undefined;
  /** Call sockets are pinged this often; a peer silent until the next ping is dropped (CALL_PING_SECONDS). */
  callPingMs?: number | undefined;
  /** Call sockets one company may hold open on this server (CALL_SOCKETS_PER_COMPANY). */
  callSocketsPerCompany?: number | undefined;
  /** The background jobs' concurrency, fairness, deadline and Resend limits (server/platform/jobs/limits.ts); unset = defaults. */
  jobLimits?: JobLimits;
}

/**
 * The call engine as the ground floor sees it. The engine itself (providers, live conversations, call
 * sockets) is `CallRuntime` (server/modules/conversations/runtime.ts), built in server/main.ts (the tests:
 * buildTestApp); the modules get it back through `callRuntime(deps)` (server/modules/conversations/call-runtime.ts).
 */
export interface CallEngine {
  /** this server's id (which server holds a live call) */
  readonly serverId: string;
}

/** Text messages from a company's own numbers (the telephony module's, plugged in by composeDeps in server/compose.ts). */
export interface TextSender {
  /** sends `message` from the company's number `from`; throws an error whose message is the reason, for the agent's model */
  send(companyId: string, message: { from: string; to: string; text: string }, signal: AbortSignal): Promise<{ id: string }>;
}

/**
 * Everything the app needs from the outside world, injected so tests build one app per test. `events` and
 * `uploads` are what the modules plug in: composeDeps (server/compose.ts) makes them.
 */
export interface AppDeps {
  db: AppDatabase;
  clock: Clock;
  mailer: Mailer;
  secrets: Secrets;
  config: AppConfig;
  logger: Logger;
  /** outbound HTTP; `realHttpClient` when absent */
  http?: HttpClient;
  /** the call engine (providers, their URLs, this server's live calls); absent = the call API answers 503 */
  calls?: CallEngine;
  /** what the modules tell each other (server/platform/events.ts), subscribed in server/compose.ts */
  events: AppEventBus;
  /** what each kind of upload leaves and when it is part of the data (server/platform/uploads/kinds.ts) */
  uploads: UploadKinds;
  /** event-loop delay over the last minute, reported by GET /health (main.ts starts one; absent: not reported) */
  eventLoop?: EventLoopMonitor;
  /** text messages from the company's numbers (composeDeps plugs in the telephony module's; absent: none can be sent) */
  texts?: TextSender;
  /** the wake channel of this app's background jobs (server/platform/jobs/wake.ts), made on first use */
  jobs?: WakeChannel;
}
