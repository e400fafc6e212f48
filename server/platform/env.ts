import * as v from 'valibot';
import type { JobLimits } from './jobs/limits.js';
import { BASE_URL_RULE, normalizeBaseUrl } from './net/base-url.js';

/** A provider API base (an http(s) origin, optionally with a path prefix), normalised. */
const ProviderBase = v.optional(
  v.pipe(
    v.string(),
    v.check((s) => normalizeBaseUrl(s) !== null, BASE_URL_RULE),
    v.transform((s) => normalizeBaseUrl(s) as string),
  ),
);
const Flag = v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false');
/** A whole number from 1 to `max`, unset by default (server/platform/jobs/limits.ts JOB_LIMIT_DEFAULTS then). */
const Count = (max: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'must be a whole number'),
      v.transform(Number),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(max, `must be at most ${max}`),
    ),
  );

/** Environment of the server, parsed once at start. A bad value exits with one line naming the variable. */
const EnvSchema = v.object({
  PORT: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'must be a port number'),
      v.transform(Number),
      v.integer(),
      v.minValue(0, 'must be between 0 and 65535'),
      v.maxValue(65535, 'must be between 0 and 65535'),
    ),
    '3000',
  ),
  HOST: v.optional(v.pipe(v.string(), v.minLength(1)), '0.0.0.0'),
  DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty')), './.data'),
  DATABASE_URL: v.optional(
    v.pipe(v.string(), v.regex(/^(postgres|postgresql):\/\//, 'must start with postgres:// or postgresql://')),
  ),
  PUBLIC_URL: v.optional(v.pipe(v.string(), v.url('must be an absolute URL'))),
  SMTP_URL: v.optional(v.pipe(v.string(), v.regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://'))),
  JWT_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  MASTER_KEY: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters'))),
  DEMO: v.optional(v.picklist(['on', 'off'], 'must be on or off')),
  REQUEST_AUTO_GRANT: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false'),
  /** Hops of trusted reverse proxies: 'true' = 1, or a number. Unset = ignore X-Forwarded-For. */
  TRUST_PROXY: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(true|false|\d+)$/, 'must be true, false or a number of proxy hops'),
      v.transform((s) => (s === 'true' ? 1 : s === 'false' ? 0 : Number(s))),
    ),
    'false',
  ),
  /** Sign-up attempts allowed per client IP in a sliding hour (unset = 20). */
  SIGNUPS_PER_HOUR: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1, 'must be at least 1')),
  ),
  /** New batch calls per second per company, across all servers sharing the database (unset = 1). */
  BATCH_DIALS_PER_SECOND: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+(\.\d+)?$/, 'must be a number of calls per second'),
      v.transform(Number),
      v.minValue(0.01, 'must be at least 0.01'),
      v.maxValue(100, 'must be at most 100'),
    ),
  ),
  /** Call sockets are pinged this often (seconds); a peer that has not answered by the next ping is dropped. */
  CALL_PING_SECONDS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+(\.\d+)?$/, 'must be a number of seconds'),
      v.transform(Number),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(300, 'must be at most 300'),
    ),
  ),
  /** Call sockets (browsers and carrier streams) one company may hold open on one server. */
  CALL_SOCKETS_PER_COMPANY: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1, 'must be at least 1')),
  ),
  /** The server refuses to start when it may open fewer files than this (server/platform/log/open-files.ts; 0 = no check). */
  MIN_OPEN_FILES: v.optional(v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number))),
  /** The background jobs (server/platform/jobs/limits.ts): concurrency per server, per company, deadlines, Resend. */
  ANALYSIS_CONCURRENCY: Count(1000),
  ANALYSIS_PER_COMPANY: Count(1000),
  ANALYSIS_DEADLINE_SECONDS: Count(3600),
  WEBHOOK_CONCURRENCY: Count(1000),
  WEBHOOK_PER_COMPANY: Count(1000),
  WEBHOOK_RESENDS_PER_MINUTE: Count(10_000),
  WEBHOOK_RESEND_INTERVAL_SECONDS: Count(86_400),
  LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  /** the phone carriers' REST origins */
  TWILIO_API_URL: ProviderBase,
  PLIVO_API_URL: ProviderBase,
  /** the WhatsApp Cloud API's origin (https://graph.facebook.com unless set) */
  WHATSAPP_API_URL: ProviderBase,
  /** a company's own provider Base URL may resolve to a loopback/private/link-local address */
  ALLOW_PRIVATE_PROVIDER_URLS: Flag,
  /** a webhook URL may resolve to a loopback/private/link-local address */
  ALLOW_PRIVATE_WEBHOOK_URLS: Flag,
  /** an agent's custom function or MCP server URL may resolve to a loopback/private/link-local address */
  ALLOW_PRIVATE_TOOL_URLS: Flag,
});

export type Env = v.InferOutput<typeof EnvSchema> & {
  /**
   * The API bases set by the variables parseEnv was given (`urlVariables`), by variable, normalised; an
   * unset one is absent. The provider registry names its variables (server/voice/providers/registry.ts
   * `urlVariables`, OPENAI_BASE_URL, DEEPGRAM_API_URL...) and turns these into each provider's base (`urlsOf`).
   */
  apiBases: Record<string, string>;
};

export class EnvError extends Error {}

/**
 * Parses the environment; `urlVariables` are more variables holding an API base (where a provider's API is,
 * for tests and self-hosted gateways; unset = the provider's own), given by the composition (server/main.ts)
 * so this floor names no provider.
 */
export function parseEnv(source: Record<string, string | undefined>, urlVariables: readonly string[] = []): Env {
  // Treat empty strings as unset, the way shells and .env files usually mean them.
  const cleaned: Record<string, string> = {};
  for (const [k, val] of Object.entries(source)) if (val !== undefined && val !== '') cleaned[k] = val;
  const bases = Object.fromEntries(
    urlVariables.filter((name) => !(name in EnvSchema.entries)).map((name) => [name, ProviderBase]),
  );
  const result = v.safeParse(v.object({ ...EnvSchema.entries, ...bases }), cleaned);
  if (result.success) {
    const output: Record<string, unknown> = { ...result.output };
    const apiBases: Record<string, string> = {};
    for (const name of Object.keys(bases)) {
      if (typeof output[name] === 'string') apiBases[name] = output[name];
      delete output[name];
    }
    return { ...(output as v.InferOutput<typeof EnvSchema>), apiBases };
  }
  const issue = result.issues[0];
  const key = issue?.path?.map((p) => String(p.key)).join('.') ?? 'environment';
  throw new EnvError(`Invalid environment variable ${key}: ${issue?.message ?? 'invalid value'}`);
}

/** The background jobs' limits set in the environment (unset ones take JOB_LIMIT_DEFAULTS). */
export function jobLimitsOfEnv(env: Env): JobLimits {
  const ms = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
  return {
    analysisConcurrency: env.ANALYSIS_CONCURRENCY,
    analysisPerCompany: env.ANALYSIS_PER_COMPANY,
    analysisDeadlineMs: ms(env.ANALYSIS_DEADLINE_SECONDS),
    webhookConcurrency: env.WEBHOOK_CONCURRENCY,
    webhookPerCompany: env.WEBHOOK_PER_COMPANY,
    resendsPerMinute: env.WEBHOOK_RESENDS_PER_MINUTE,
    resendIntervalMs: ms(env.WEBHOOK_RESEND_INTERVAL_SECONDS),
  };
}
