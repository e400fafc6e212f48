/**
 * Post-call analysis. When a call ends, a `call_analyses` row is queued (migration 014); the
 * analysis worker (started with the server, like the webhook worker) asks the agent's LLM, with the
 * company's key, for a summary, the caller's sentiment, whether the call achieved its goal, and the agent's
 * custom fields ('Post Call Analysis'), as one JSON object in a shape the provider is asked to keep
 * (analysisSchema: OpenAI's strict json_schema response format, Anthropic's forced tool). The answer is
 * still validated against the fields' types; a malformed answer or a provider failure is retried
 * (MAX_ATTEMPTS in all, RETRY_DELAYS_MS apart), then the analysis is marked failed. A provider that refuses
 * the request (refusedByProvider) fails it at once with its reason. The call record never waits for it: the call is stored first, and
 * the analysis fills its 'Successful' column and is sent as `call_analyzed` when it is done.
 *
 * Analyses are a leased job (server/platform/jobs/leased-job.ts): they run concurrently and fairly across
 * companies, at most
 * `analysisConcurrency` at once per server, at most `analysisPerCompany` of one company at once across
 * servers, claimed each company's oldest first; and each attempt as a whole ends at `analysisDeadlineMs`
 * (AnalysisDeadlineError), so an LLM that drips a token every few seconds holds one slot of its own
 * company for that long at most (docs/webhooks.md, "Fairness").
 */

import type { AnalysisField } from '@contract/agent/records.js';
import type { AgentDoc } from '@contract/agent/save.js';
import { type CallAnalysis, SENTIMENTS, type TranscriptTurn } from '@contract/call-runtime.js';
import { modelPurpose } from '@contract/provider-keys.js';
import { contentPolicy, keptAnalysis } from '../../platform/call-content.js';
import { parseJson } from '../../platform/db/json.js';
import type { AppDeps } from '../../platform/deps.js';
import { defineLeasedJob, type JobRow } from '../../platform/jobs/leased-job.js';
import { jobLimitsOf } from '../../platform/jobs/limits.js';
import { wakeChannel } from '../../platform/jobs/wake.js';
import { callRuntimeOf } from '../../voice/engine/call-runtime.js';
import { pipelineOf } from '../../voice/engine/pipeline.js';
import { parseAgentDoc } from '../../voice/engine/plan.js';
import { ProviderError } from '../../voice/providers/types.js';
import { ProviderKeyMissingError, providerAccess } from '../providers/index.js';
import { analysedCall, insertAnalysis } from './analysis.repo.js';
import { setCallSuccessful } from './call-analytics.repo.js';

export const MAX_ATTEMPTS = 3;
export const RETRY_DELAYS_MS = [30_000, 120_000] as const;
export const LEASE_MS = 120_000;
export const POLL_MS = 2000;
/** the transcript given to the LLM is cut to its last this many characters */
const TRANSCRIPT_MAX = 40_000;

type Row = JobRow<'call_analyses'>;

/** A wrong answer of the LLM (not JSON, a field of the wrong type): retried like a provider failure. */
export class AnalysisFormatError extends Error {}

/** Queues the analysis of an ended call (once per call) and wakes this app's analysis workers. */
export async function queueAnalysis(deps: AppDeps, call: { companyId: string; callId: string }): Promise<void> {
  await insertAnalysis(deps.db.db, call, deps.clock.now().toISOString());
  wakeChannel(deps).wake('call_analyses');
}

// ---------------------------------------------------------------------------------------------
// The question and the answer

function fieldLine(f: AnalysisField): string {
  const type =
    f.type === 'enum' ? `one of ${f.choices.map((c) => JSON.stringify(c)).join(', ')}` : f.type === 'text' ? 'string' : f.type;
  return `- "${f.name}" (${type}, or null when the call does not say)${f.description ? `: ${f.description}` : ''}`;
}

export function analysisMessages(agent: AgentDoc, transcript: TranscriptTurn[]) {
  const fields = agent.editor.postCallAnalysisFields ?? [];
  const lines = transcript.map((t) => `${t.role === 'agent' ? 'Agent' : 'Caller'}: ${t.text}`).join('\n');
  const text = lines.length > TRANSCRIPT_MAX ? lines.slice(-TRANSCRIPT_MAX) : lines;
  const system = [
    'You analyse a finished phone call between an AI agent and a caller. Answer with one JSON object only, no prose, with these keys:',
    '- "summary" (string): two or three sentences on what happened in the call.',
    `- "sentiment" (one of ${SENTIMENTS.map((s) => `"${s}"`).join(', ')}): the caller's sentiment.`,
    '- "goal_achieved" (boolean): whether the call achieved the goal the agent was given.',
    `- "custom" (object)${fields.length ? ' with exactly these keys:' : ': {}'}`,
    ...fields.map(fieldLine),
    agent.editor.postCallAnalysisData?.trim() ? `What else to look for: ${agent.editor.postCallAnalysisData.trim()}` : '',
    `The agent's goal and instructions were:\n${agent.prompt.slice(0, 8000)}`,
  ]
    .filter(Boolean)
    .join('\n');
  return [
    { role: 'system' as const, content: system },
    { role: 'user' as const, content: `Transcript:\n${text || '(nobody spoke)'}` },
  ];
}

/** The name of the answer's shape (OpenAI's json_schema name, Anthropic's forced tool). */
export const ANALYSIS_SHAPE_NAME = 'call_analysis';

const FIELD_SCHEMA: Record<AnalysisField['type'], Record<string, unknown>> = {
  text: { type: ['string', 'null'] },
  number: { type: ['number', 'null'] },
  boolean: { type: ['boolean', 'null'] },
  enum: { type: ['string', 'null'] },
};

/**
 * The answer's JSON Schema, built from the agent's analysis fields, in the subset OpenAI's strict mode takes
 * (every property required, `additionalProperties: false`, a value the call does not say is null); Anthropic
 * takes the same schema as a tool's `input_schema`. parseAnalysis still checks the answer against it.
 */
export function analysisSchema(fields: AnalysisField[]): Record<string, unknown> {
  const custom: Record<string, unknown> = {};
  for (const f of fields)
    custom[f.name] = {
      ...(f.type === 'enum' ? { type: ['string', 'null'], enum: [...f.choices, null] } : FIELD_SCHEMA[f.type]),
      ...(f.description ? { description: f.description.slice(0, 1000) } : {}),
    };
  return {
    type: 'object',
    properties: {
      summary: { type: 'string', description: 'Two or three sentences on what happened in the call.' },
      sentiment: { type: 'string', enum: [...SENTIMENTS], description: "The caller's sentiment." },
      goal_achieved: { type: 'boolean', description: 'Whether the call achieved the goal the agent was given.' },
      custom: { type: 'object', properties: custom, required: fields.map((f) => f.name), additionalProperties: false },
    },
    required: ['summary', 'sentiment', 'goal_achieved', 'custom'],
    additionalProperties: false,
  };
}

/**
 * A provider that refused the request itself (a 4xx other than 429: a refused key, a model it does not
 * serve, a schema it does not take) or whose model refused to answer: asking again minutes later gets the
 * same answer, so the analysis fails at once with the reason.
 */
export function refusedByProvider(e: unknown): e is ProviderError {
  return e instanceof ProviderError && (e.kind === 'auth' || e.kind === 'bad_request');
}

/** Parses and checks the LLM's answer; throws AnalysisFormatError naming what is wrong. */
export function parseAnalysis(answer: string, fields: AnalysisField[]): Omit<CallAnalysis, 'status' | 'error'> {
  const body = answer
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new AnalysisFormatError('The analysis was not valid JSON');
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new AnalysisFormatError('The analysis was not a JSON object');
  if (typeof o.summary !== 'string') throw new AnalysisFormatError('summary must be a string');
  if (!SENTIMENTS.includes(o.sentiment as (typeof SENTIMENTS)[number]))
    throw new AnalysisFormatError(`sentiment must be one of ${SENTIMENTS.join(', ')}`);
  if (typeof o.goal_achieved !== 'boolean') throw new AnalysisFormatError('goal_achieved must be true or false');
  const given = (o.custom && typeof o.custom === 'object' ? o.custom : {}) as Record<string, unknown>;
  const custom: Record<string, string | number | boolean | null> = {};
  for (const f of fields) {
    const value = given[f.name];
    if (value === null || value === undefined) {
      custom[f.name] = null;
      continue;
    }
    const ok =
      (f.type === 'text' && typeof value === 'string') ||
      (f.type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
      (f.type === 'boolean' && typeof value === 'boolean') ||
      (f.type === 'enum' && typeof value === 'string' && f.choices.includes(value));
    if (!ok)
      throw new AnalysisFormatError(
        f.type === 'enum'
          ? `${f.name} must be one of ${f.choices.join(', ')}`
          : `${f.name} must be a ${f.type === 'text' ? 'string' : f.type}`,
      );
    custom[f.name] = typeof value === 'string' ? value.slice(0, 2000) : (value as number | boolean);
  }
  return {
    summary: o.summary.slice(0, 4000),
    sentiment: o.sentiment as (typeof SENTIMENTS)[number],
    successful: o.goal_achieved,
    custom,
  };
}

// ---------------------------------------------------------------------------------------------
// The worker

export interface AnalysisWorkerOptions {
  workerId?: string;
  pollMs?: number;
  leaseMs?: number;
}

export interface AnalysisWorker {
  /**
   * Claims due analyses fairly across companies, as many as the free slots allow, and runs them at once;
   * true when it ran any.
   */
  runOnce(): Promise<boolean>;
  start(): void;
  stop(): Promise<void>;
}

/** An attempt that outlived its deadline (JobLimits.analysisDeadlineMs): retried like a provider failure. */
export class AnalysisDeadlineError extends Error {
  constructor(ms: number) {
    const s = Math.round(ms / 100) / 10;
    super(`The LLM did not finish the analysis within ${s} ${s === 1 ? 'second' : 'seconds'}.`);
  }
}

/** Resolves with `work`, or rejects with the signal's reason once it aborts (the work is left to end). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function createAnalysisWorker(deps: AppDeps, opts: AnalysisWorkerOptions = {}): AnalysisWorker {
  async function analyse(row: Row, signal: AbortSignal) {
    const session = await analysedCall(deps.db.db, row.company_id, row.call_id);
    if (!session) throw new Error('The call is gone');
    // the stored agent, validated (an invalid one fails the attempt, naming the fields)
    const agent = parseAgentDoc(session.agent);
    // a call kept as metadata only has no text to analyse, and its analysis keeps none
    const policy = contentPolicy(session.agent, session.dynamic_variables);
    if (policy.level === 'metadata_only') return { summary: null, sentiment: null, successful: null, custom: {} };
    const transcript = parseJson<TranscriptTurn[]>(session.transcript, []);
    // the providers come with the call engine, as the engine's own do (server/main.ts composes them)
    const providers = callRuntimeOf(deps)?.providers;
    if (!providers) throw new Error('This server runs no call engine: it has no providers to analyse with');
    const pipeline = pipelineOf(agent, providers);
    // a speech-to-speech agent's model only talks: its analysis is written by GPT 4o with the same key
    const llm = pipeline.mode === 'realtime' ? { provider: 'openai' as const, model: 'gpt-4o' } : pipeline.llm;
    const access = await providerAccess(deps, row.company_id, llm.provider, modelPurpose(agent.settings.llm.options.model));
    let text = '';
    for await (const e of providers.llm(llm.provider).stream({
      apiKey: access.apiKey,
      baseUrl: access.baseUrl,
      publicOnly: access.publicOnly,
      model: llm.model,
      messages: analysisMessages(agent, transcript),
      tools: [],
      temperature: 0,
      maxTokens: 1000,
      signal,
      structuredOutput: {
        name: ANALYSIS_SHAPE_NAME,
        description: 'The analysis of the finished call.',
        schema: analysisSchema(agent.editor.postCallAnalysisFields ?? []),
      },
    })) {
      if (e.type === 'delta') text += e.text;
      if (text.length > 64_000) throw new AnalysisFormatError('The analysis was too long');
    }
    const analysis = parseAnalysis(text, agent.editor.postCallAnalysisFields ?? []);
    return keptAnalysis(analysis, policy) ?? { summary: null, sentiment: null, successful: null, custom: {} };
  }

  /**
   * One attempt, ended at its deadline whatever it is waiting for (the company's key, the LLM's first byte
   * or a token dripping every few seconds): the LLM's stream is aborted and the attempt fails.
   */
  async function attempt(row: Row) {
    const deadlineMs = jobLimitsOf(deps.config).analysisDeadlineMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new AnalysisDeadlineError(deadlineMs)), deadlineMs);
    try {
      return await raceAbort(analyse(row, deadline.signal), deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  const job = defineLeasedJob(
    deps,
    {
      name: 'call analysis',
      table: 'call_analyses',
      key: 'call_id',
      // the lease outlasts the attempt's deadline, so no other server takes a row still being analysed
      leaseMs: () => opts.leaseMs ?? Math.max(LEASE_MS, jobLimitsOf(deps.config).analysisDeadlineMs + 60_000),
      pollMs: opts.pollMs ?? POLL_MS,
      retry: {
        attempts: () => MAX_ATTEMPTS,
        backoffMs: (attempt) => RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? 0,
      },
      concurrency: () => jobLimitsOf(deps.config).analysisConcurrency,
      perCompany: () => jobLimitsOf(deps.config).analysisPerCompany,
      // claimed again after its server died during the last attempt
      exhausted: () => ({ set: { error: 'The analysis failed' } }),
      handle: async (row) => {
        const result = await attempt(row);
        return {
          status: 'done',
          set: { result: JSON.stringify(result), error: null },
          also: (trx) => setCallSuccessful(trx, row.company_id, row.call_id, result.successful === true),
          after: async () => {
            await deps.events.publish('call.analyzed', { companyId: row.company_id, callId: row.call_id });
          },
        };
      },
      onError: (e, row) => {
        const known =
          e instanceof AnalysisFormatError ||
          e instanceof AnalysisDeadlineError ||
          e instanceof ProviderError ||
          e instanceof ProviderKeyMissingError;
        if (!known)
          deps.logger.warn('call analysis failed', { callId: row.call_id, reason: e instanceof Error ? e.message : String(e) });
        if (refusedByProvider(e)) return { status: 'failed', set: { error: e.message } };
        return { status: 'retry', set: { error: known ? e.message : 'The analysis failed' } };
      },
    },
    { workerId: opts.workerId },
  );

  return {
    runOnce: async () => (await job.runOnce()) > 0,
    start: () => job.start(),
    stop: () => job.stop(),
  };
}
