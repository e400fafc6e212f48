/**
 * Runs the agent's functions inside a call (the ToolKinds of registry.ts do the requests):
 * - prepareTools: at a conversation's start, every runnable function through its ToolKind, in parallel,
 *   each within PREPARE_TIMEOUT_MS; a function whose prepare fails (or has no ToolKind) is left out and
 *   logged, and the call goes on without it.
 * - runTool: one tool call of the model: its arguments checked against the tool's `parameters` (ajv;
 *   invalid ones go back to the model and nothing is sent), the function's timeout, errors turned into a
 *   short reason, cancelling (a barge-in or the call's end) and the result cut at TOOL_RESULT_MAX_BYTES.
 */
import { type AgentFunction, type FunctionType, TOOL_RESULT_MAX_BYTES, TOOL_TIMEOUT_MS } from '@contract/agent/functions.js';
import type { ToolCallStatus } from '@contract/call-runtime.js';
import { Ajv, type ValidateFunction } from 'ajv';
import type { Logger } from '../../platform/log/logger.js';
import type { TOOL_KINDS } from './registry.js';
import { type PreparedTool, type ToolEnv, ToolError, type ToolKind } from './types.js';

/** The registry the engine prepares functions with (TOOL_KINDS; tests inject their own). */
export type ToolKinds = typeof TOOL_KINDS;

/** A function's prepare (an MCP server's tools/list) must finish within this time, else it is left out. */
export const PREPARE_TIMEOUT_MS = 10_000;
/** A tool that has not answered after this long makes the agent say the function's `speak_during`. */
export const SPEAK_DURING_AFTER_MS = 500;

/** The function types the engine itself carries out (not through a ToolKind). */
const ENGINE_TYPES: readonly FunctionType[] = ['end_call', 'transfer'];

/** What a tool is run with, before its signal (the runner gives each run its own). */
export type ToolEnvBase = Omit<ToolEnv, 'signal'>;

/**
 * The agent's runnable functions prepared into tools, in parallel. A function without a ToolKind, whose
 * prepare throws or passes `deadlineMs` is left out (logged without its settings, which may hold secrets);
 * tools whose names clash with an earlier one are left out too (the LLM needs unique names).
 */
export async function prepareTools(
  functions: readonly AgentFunction[],
  kinds: ToolKinds,
  env: ToolEnvBase,
  logger: Logger,
  signal: AbortSignal,
  deadlineMs = PREPARE_TIMEOUT_MS,
): Promise<PreparedTool[]> {
  const runnable = functions.filter((f) => !ENGINE_TYPES.includes(f.type));
  const lists = await Promise.all(
    runnable.map(async (fn) => {
      const kind = (kinds as Partial<Record<FunctionType, ToolKind>>)[fn.type];
      if (!kind) {
        logger.warn('function left out of the call: its type cannot run here', { function: fn.name, type: fn.type });
        return [];
      }
      const own = new AbortController();
      const stop = () => own.abort();
      signal.addEventListener('abort', stop, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            own.abort();
            reject(new ToolError(`preparing took longer than ${deadlineMs} ms`));
          }, deadlineMs);
        });
        late.catch(() => {});
        return await Promise.race([kind.prepare(fn as never, { ...env, signal: own.signal }), late]);
      } catch (e) {
        logger.warn('function left out of the call: it could not be prepared', {
          function: fn.name,
          type: fn.type,
          reason: e instanceof Error ? e.message.slice(0, 200) : String(e),
        });
        return [];
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
      }
    }),
  );
  const names = new Set<string>(functions.filter((f) => ENGINE_TYPES.includes(f.type)).map((f) => f.name));
  const tools: PreparedTool[] = [];
  for (const tool of lists.flat()) {
    if (names.has(tool.spec.name)) {
      logger.warn('tool left out of the call: its name is taken', { tool: tool.spec.name });
      void tool.close?.().catch(() => {});
      continue;
    }
    names.add(tool.spec.name);
    tools.push(tool);
  }
  return tools;
}

/** Closes prepared tools (an MCP session ends); never throws. */
export async function closeTools(tools: readonly PreparedTool[]): Promise<void> {
  await Promise.allSettled(tools.map((t) => t.close?.()));
}

/** One tool call's outcome, as recorded and as the model reads it. */
export interface ToolRun {
  status: ToolCallStatus;
  ok: boolean;
  /** what the model reads (cut at TOOL_RESULT_MAX_BYTES); '' when cancelled */
  result: string;
  /** the tool's run time */
  ms: number;
}

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const validators = new WeakMap<object, ValidateFunction | null>();

/** The compiled check of a tool's `parameters`, or null when they are not a schema ajv can compile. */
function validatorOf(tool: PreparedTool): ValidateFunction | null {
  const schema = tool.spec.parameters as object;
  let v = validators.get(schema);
  if (v === undefined) {
    try {
      v = ajv.compile(schema);
    } catch {
      v = null;
    }
    validators.set(schema, v);
  }
  return v;
}

/** The ajv errors of `args` in short words for the model, or null when they are valid. */
export function argumentProblems(tool: PreparedTool, args: Record<string, unknown>): string | null {
  const validate = validatorOf(tool);
  if (!validate || validate(args)) return null;
  const problems = (validate.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`);
  return `Invalid arguments for ${tool.spec.name}: ${problems.join('; ')}. Call it again with arguments that match its parameters.`;
}

/** `result` cut at `max` bytes of UTF-8 (never in the middle of a character), with the cut said. */
export function cutResult(result: string, max = TOOL_RESULT_MAX_BYTES): string {
  const bytes = Buffer.from(result, 'utf8');
  if (bytes.byteLength <= max) return result;
  let end = max;
  // step back to the start of a character (continuation bytes are 10xxxxxx)
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  const head = bytes.subarray(0, end).toString('utf8');
  return `${head}\n[cut: the answer was ${bytes.byteLength} bytes; only the first ${max} are shown]`;
}

export const timedOutMessage = (name: string, ms: number) => `The function ${name} timed out after ${ms} ms`;

/**
 * Runs one tool call: arguments checked, then `tool.run` within the function's timeout. `signal` is the
 * turn's: when it aborts (a barge-in, the call's end) the tool's own signal aborts and the run answers
 * 'cancelled' with no result. Never throws.
 */
export async function runTool(
  tool: PreparedTool,
  args: Record<string, unknown>,
  env: ToolEnvBase,
  signal: AbortSignal,
): Promise<ToolRun> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const name = tool.spec.name;
  if (signal.aborted) return { status: 'cancelled', ok: false, result: '', ms: 0 };
  const problems = argumentProblems(tool, args);
  if (problems) return { status: 'invalid_arguments', ok: false, result: cutResult(problems), ms: ms() };
  const timeoutMs = 'timeout_ms' in tool.fn && tool.fn.timeout_ms ? tool.fn.timeout_ms : TOOL_TIMEOUT_MS.default;
  const own = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const ended = new Promise<'timeout' | 'cancelled'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    onAbort = () => resolve('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([
      Promise.resolve()
        .then(() => tool.run(args, { ...env, signal: own.signal }))
        .then(
          (o) => ({
            kind: 'done' as const,
            ok: o.ok === true,
            result: typeof o.result === 'string' ? o.result : String(o.result),
          }),
          (e: unknown) => ({ kind: 'failed' as const, error: e }),
        ),
      ended.then((kind): { kind: 'timeout' | 'cancelled' } => ({ kind })),
    ]);
    if (outcome.kind === 'cancelled') return { status: 'cancelled', ok: false, result: '', ms: ms() };
    if (outcome.kind !== 'done' && outcome.kind !== 'failed')
      return { status: 'timeout', ok: false, result: timedOutMessage(name, timeoutMs), ms: ms() };
    if (outcome.kind === 'failed') {
      if (signal.aborted) return { status: 'cancelled', ok: false, result: '', ms: ms() };
      const reason =
        outcome.error instanceof ToolError ? outcome.error.message : `The function ${name} failed before it answered.`;
      if (!(outcome.error instanceof ToolError))
        env.deps.logger.warn('function failed', {
          function: name,
          reason: outcome.error instanceof Error ? outcome.error.message.slice(0, 200) : String(outcome.error),
        });
      return { status: 'error', ok: false, result: cutResult(reason), ms: ms() };
    }
    if (signal.aborted) return { status: 'cancelled', ok: false, result: '', ms: ms() };
    return { status: outcome.ok ? 'ok' : 'error', ok: outcome.ok, result: cutResult(outcome.result), ms: ms() };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    own.abort();
  }
}
