import * as v from 'valibot';

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
  LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
});

export type Env = v.InferOutput<typeof EnvSchema>;

export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Treat empty strings as unset, the way shells and .env files usually mean them.
  const cleaned: Record<string, string> = {};
  for (const [k, val] of Object.entries(source)) if (val !== undefined && val !== '') cleaned[k] = val;
  const result = v.safeParse(EnvSchema, cleaned);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const key = issue?.path?.map((p) => String(p.key)).join('.') ?? 'environment';
  throw new EnvError(`Invalid environment variable ${key}: ${issue?.message ?? 'invalid value'}`);
}
