/**
 * The tool runner (server/voice/tools/runner.ts) on its own: arguments checked before a tool runs, the
 * function's timeout, errors as short reasons, cancelling, the 16 KB cut, and prepare leaving out a function
 * that fails or takes too long.
 */
import type { AgentFunction } from '@contract/agent/functions.js';
import { describe, expect, it } from 'vitest';
import type { AppDeps } from '../../../server/platform/deps.js';
import { cutResult, prepareTools, runTool, type ToolEnvBase, type ToolKinds } from '../../../server/voice/tools/runner.js';
import {
  type PreparedTool,
  type ToolEnv,
  ToolError,
  type ToolKind,
  type ToolOutcome,
} from '../../../server/voice/tools/types.js';

const warnings: { message: string; fields: unknown }[] = [];
const logger = {
  debug() {},
  info() {},
  warn(message: string, fields?: unknown) {
    warnings.push({ message, fields });
  },
  error() {},
};
const env: ToolEnvBase = {
  deps: { logger } as unknown as AppDeps,
  companyId: 'c1',
  call: { call_id: 'k1', agent_id: 'a1', type: 'chat', from_number: null, to_number: null, dynamic_variables: {} },
  keys: {},
  services: { signingSecret: async () => 's', sendSms: async () => ({ id: 'm' }) },
  phone: undefined,
};

const custom = (patch: Partial<Extract<AgentFunction, { type: 'custom' }>> = {}): AgentFunction => ({
  id: 1,
  type: 'custom',
  name: 'lookup',
  description: 'Looks up the opening hours',
  url: 'https://api.example.com/hours',
  method: 'POST',
  headers: [],
  parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
  timeout_ms: 1000,
  speak_during: '',
  ...patch,
});

function tool(
  run: (args: Record<string, unknown>, env: ToolEnv) => Promise<ToolOutcome>,
  fn = custom(),
): PreparedTool & { runs: number } {
  const t = {
    runs: 0,
    fn,
    spec: { name: fn.name, description: fn.description, parameters: (fn as { parameters: Record<string, unknown> }).parameters },
    run: (args: Record<string, unknown>, e: ToolEnv) => {
      t.runs++;
      return run(args, e);
    },
  };
  return t;
}

const never = (_: Record<string, unknown>, e: ToolEnv) =>
  new Promise<ToolOutcome>((_, reject) => e.signal.addEventListener('abort', () => reject(new Error('aborted'))));

describe('runTool', () => {
  it('runs a tool with valid arguments and gives its answer', async () => {
    const t = tool(async (args) => ({ ok: true, result: `open on ${args.day}` }));
    const run = await runTool(t, { day: 'monday' }, env, new AbortController().signal);
    expect(run).toMatchObject({ status: 'ok', ok: true, result: 'open on monday' });
    expect(run.ms).toBeGreaterThanOrEqual(0);
  });

  it('invalid arguments never reach the tool: the ajv errors go back to the model', async () => {
    const t = tool(async () => ({ ok: true, result: 'sent' }));
    const run = await runTool(t, { day: 5 }, env, new AbortController().signal);
    expect(t.runs).toBe(0);
    expect(run.status).toBe('invalid_arguments');
    expect(run.ok).toBe(false);
    expect(run.result).toContain('Invalid arguments for lookup');
    expect(run.result).toContain('/day must be string');
    const missing = await runTool(t, {}, env, new AbortController().signal);
    expect(missing.result).toContain("must have required property 'day'");
    expect(t.runs).toBe(0);
  });

  it("past the function's timeout the model is told it timed out, and the tool's signal aborts", async () => {
    let aborted = false;
    const t = tool((args, e) => {
      e.signal.addEventListener('abort', () => {
        aborted = true;
      });
      return never(args, e);
    });
    const run = await runTool(t, { day: 'monday' }, env, new AbortController().signal);
    expect(run).toMatchObject({ status: 'timeout', ok: false, result: 'The function lookup timed out after 1000 ms' });
    expect(aborted).toBe(true);
  });

  it('a ToolError is said in its words; any other error is a short reason, never a throw', async () => {
    const refused = await runTool(
      tool(async () => {
        throw new ToolError('The API answered 503');
      }),
      { day: 'monday' },
      env,
      new AbortController().signal,
    );
    expect(refused).toMatchObject({ status: 'error', ok: false, result: 'The API answered 503' });
    const broken = await runTool(
      tool(async () => {
        throw new TypeError('x is undefined');
      }),
      { day: 'monday' },
      env,
      new AbortController().signal,
    );
    expect(broken).toMatchObject({ status: 'error', result: 'The function lookup failed before it answered.' });
    const notOk = await runTool(
      tool(async () => ({ ok: false, result: 'No slot' })),
      { day: 'monday' },
      env,
      new AbortController().signal,
    );
    expect(notOk).toMatchObject({ status: 'error', ok: false, result: 'No slot' });
  });

  it('the turn aborted (a barge-in): cancelled, its result dropped', async () => {
    const turn = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const t = tool((args, e) => {
      toolSignal = e.signal;
      return never(args, e);
    });
    const running = runTool(t, { day: 'monday' }, env, turn.signal);
    await new Promise((r) => setImmediate(r));
    turn.abort();
    expect(await running).toMatchObject({ status: 'cancelled', ok: false, result: '' });
    expect(toolSignal?.aborted).toBe(true);
    // an answer that arrives as the turn is aborted is dropped too
    const late = new AbortController();
    const answer = runTool(
      tool(async () => {
        late.abort();
        return { ok: true, result: 'late' };
      }),
      { day: 'monday' },
      env,
      late.signal,
    );
    expect(await answer).toMatchObject({ status: 'cancelled', result: '' });
  });

  it('a result over 16 KB is cut, and the cut said', async () => {
    const big = 'x'.repeat(20_000);
    const run = await runTool(
      tool(async () => ({ ok: true, result: big })),
      { day: 'monday' },
      env,
      new AbortController().signal,
    );
    expect(run.result).toBe(`${'x'.repeat(16_384)}\n[cut: the answer was 20000 bytes; only the first 16384 are shown]`);
    // never in the middle of a character
    const euros = cutResult('€'.repeat(6000));
    expect(euros.startsWith('€'.repeat(5461))).toBe(true);
    expect(euros).toContain('[cut: the answer was 18000 bytes; only the first 16384 are shown]');
    expect(euros).not.toContain('\uFFFD');
    expect(cutResult('short')).toBe('short');
  });
});

describe('prepareTools', () => {
  const kind = (prepare: ToolKind['prepare']): ToolKind => ({ type: 'custom', prepare });

  it('prepares in parallel; a function that fails or takes too long is left out and logged, the rest go on', async () => {
    warnings.length = 0;
    const started: string[] = [];
    const kinds = {
      custom: kind(async (fn, e) => {
        started.push(fn.name);
        if (fn.name === 'broken') throw new Error('tools/list refused');
        if (fn.name === 'slow') await new Promise((resolve) => e.signal.addEventListener('abort', resolve));
        return [tool(async () => ({ ok: true, result: fn.name }), fn)];
      }),
    } as ToolKinds;
    const tools = await prepareTools(
      [
        { id: 1, type: 'end_call', name: 'end_call', description: '' },
        custom({ name: 'lookup' }),
        custom({ name: 'broken' }),
        custom({ name: 'slow' }),
        { ...custom({ name: 'sms' }), type: 'send_sms', template: '' } as AgentFunction,
      ],
      kinds,
      env,
      logger,
      new AbortController().signal,
      200,
    );
    expect(tools.map((t) => t.spec.name)).toEqual(['lookup']);
    expect(started.sort()).toEqual(['broken', 'lookup', 'slow']);
    expect(warnings.map((w) => [w.message, (w.fields as { function: string }).function])).toEqual([
      ['function left out of the call: its type cannot run here', 'sms'],
      ['function left out of the call: it could not be prepared', 'broken'],
      ['function left out of the call: it could not be prepared', 'slow'],
    ]);
  });
});
