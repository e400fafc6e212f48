/**
 * The limits of the background jobs (AppConfig.jobLimits, read from the environment in
 * server/platform/env.ts): how many runs one server holds at once, how many of one company run at once
 * across servers, the analysis deadline and the delivery log's Resend limits. Unset limits take
 * JOB_LIMIT_DEFAULTS.
 */
export interface JobLimits {
  /** analyses running at once in one server (ANALYSIS_CONCURRENCY) */
  analysisConcurrency?: number;
  /** analyses of one company running at once, across servers (ANALYSIS_PER_COMPANY) */
  analysisPerCompany?: number;
  /** the whole of one analysis attempt, LLM answer included (ANALYSIS_DEADLINE_SECONDS) */
  analysisDeadlineMs?: number;
  /** webhook deliveries being sent at once by one server (WEBHOOK_CONCURRENCY) */
  webhookConcurrency?: number;
  /** deliveries of one company being sent at once, across servers (WEBHOOK_PER_COMPANY) */
  webhookPerCompany?: number;
  /** 'Resend's a company may make in a sliding minute (WEBHOOK_RESENDS_PER_MINUTE) */
  resendsPerMinute?: number;
  /** the wait between two 'Resend's of one delivery (WEBHOOK_RESEND_INTERVAL_SECONDS) */
  resendIntervalMs?: number;
}

export const JOB_LIMIT_DEFAULTS: Required<JobLimits> = {
  analysisConcurrency: 8,
  analysisPerCompany: 2,
  analysisDeadlineMs: 60_000,
  webhookConcurrency: 16,
  webhookPerCompany: 4,
  resendsPerMinute: 20,
  resendIntervalMs: 60_000,
};

/** The limits in force: the configured ones, the defaults for the rest. */
export function jobLimitsOf(config: { jobLimits?: JobLimits | undefined }): Required<JobLimits> {
  const set = Object.entries(config.jobLimits ?? {}).filter(([, value]) => typeof value === 'number' && value > 0);
  return { ...JOB_LIMIT_DEFAULTS, ...Object.fromEntries(set) };
}
