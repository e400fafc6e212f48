/**
 * A tool turn's added latency, with every fake answering at once: the built server (`npm start`, SQLite)
 * runs web calls against the protocol fakes of Deepgram, OpenAI and ElevenLabs and a company's own API
 * (tests/fakes/customer-api.ts, which checks the X-Parley-Signature of each request) in this process. The
 * agent has one custom function; on every caller turn the OpenAI fake answers with a call to it and
 * nothing else, then, once given its result, with a short sentence. Callers are WebSockets sending 16 kHz
 * PCM16 in 20 ms frames at real-time pace: web calls, so the whole engine path runs (the call machine, the
 * reply actor's tool loop, the runner, the signed HTTP request, the continuation request) with audio
 * flowing on every other call at the same time.
 *
 * Figures, for 1 call (many turns one after another) and for CONCURRENT simultaneous calls (each running
 * the function on every turn):
 * - to the tool: the OpenAI fake wrote the first `tool_calls` chunk -> the company's API received the
 *   request (the rest of the model's stream, its parse, the argument check, the signing, the HTTP request);
 * - back to the model: the company's API answered -> the OpenAI fake received the continuation request
 *   (the answer's read, the machine's record, the new request with the tool message);
 * p50 / p95 / max of each; budget p95 <= 20 ms. Also the server's event-loop delay p99 (GET
 * /api/v1/health, the server's last minute) during the concurrent run, and the bench's own two threads':
 * the callers and the speech fakes on the main thread, the model (OpenAI fake) and the company's API on a
 * thread of their own (tools-model.worker.ts), so the moments measured there do not wait behind the
 * callers' audio. A delay on either thread makes the server look slower than it is.
 */
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import { buildAll } from '../scripts/build.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { buildIsStale } from '../scripts/lib/stale.mjs';
import { DeepgramFake } from '../tests/fakes/deepgram.js';
import { ElevenLabsFake } from '../tests/fakes/elevenlabs.js';
import { percentiles } from './lib.js';
import { QUICK, writeSection } from './results.mjs';
import type { ModelCommand, ModelMessage } from './tools-model.worker.js';

const CONCURRENT = QUICK ? 10 : 50;
/** turns of the single call, one after another */
const TURNS_ONE = QUICK ? 5 : 30;
/** turns of each of the simultaneous calls */
const TURNS_MANY = QUICK ? 2 : 4;
const FRAME_MS = 20;
const BUDGET_P95_MS = 20;
const FUNCTION_NAME = 'book_visit';
/** a call whose state has not moved for this long is given up (and reported) */
const STUCK_MS = 15_000;

const log = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function frame(loud: boolean, n: number): Buffer {
  const f = Buffer.alloc(640);
  if (loud)
    for (let i = 0; i < 320; i++) f.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 440 * (n * 320 + i)) / 16000)), i * 2);
  return f;
}

/** The moments of one tool turn, by its reference (the function's `ref` argument and its call id). */
interface ToolTurn {
  run: string;
  /** the caller's turns in the request's history (this one included) */
  userTurns: number;
  toolCallSentAt?: number;
  /** the model's answer ended (`[DONE]` written): the engine runs the function after the whole stream */
  streamEndAt?: number;
  apiAt?: number;
  continuationAt?: number;
}

async function main() {
  if (buildIsStale()) await buildAll({ quiet: true });
  const turns = new Map<string, ToolTurn>();
  /** calls given up: their state did not move */
  const stuck: string[] = [];
  const deepgram = await DeepgramFake.start();
  // the model and the company's API answer from a thread of their own (tools-model.worker.ts)
  const model = new Worker(new URL('./ts-worker.mjs', import.meta.url), {
    workerData: { entry: new URL('./tools-model.worker.ts', import.meta.url).href, functionName: FUNCTION_NAME },
  });
  const answers: ModelMessage[] = [];
  const waiters: ((m: ModelMessage) => boolean)[] = [];
  model.on('message', (m: ModelMessage) => {
    if (m.type === 'turn') turns.set(m.ref, { run: m.run, userTurns: m.userTurns });
    else if (m.type === 'moment') {
      const turn = turns.get(m.ref);
      if (turn) turn[m.what] = m.at;
    } else answers.push(m);
    for (const w of waiters.splice(0)) if (!w(m)) waiters.push(w);
  });
  model.on('error', (e) => log(`the model's thread failed: ${e.message}`));
  /** the next answer of `type` from the model's thread */
  const answer = <T extends ModelMessage['type']>(type: T) =>
    new Promise<Extract<ModelMessage, { type: T }>>((resolve) => {
      const found = answers.findIndex((m) => m.type === type);
      if (found >= 0) return resolve(answers.splice(found, 1)[0] as Extract<ModelMessage, { type: T }>);
      waiters.push((m) => {
        if (m.type !== type) return false;
        answers.splice(answers.indexOf(m), 1);
        resolve(m as Extract<ModelMessage, { type: T }>);
        return true;
      });
    });
  const tell = (c: ModelCommand) => model.postMessage(c);
  const ready = await answer('ready');
  const openai = { url: ready.openaiUrl, apiKey: ready.openaiKey };
  const customer = { url: ready.customerUrl };
  const eleven = await ElevenLabsFake.start();
  eleven.msPerChar = 10;
  deepgram.script = Array.from({ length: 10_000 }, () => 'Please book me a visit tomorrow.');
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const server = await startServer({
    env: {
      DEEPGRAM_API_URL: deepgram.url,
      OPENAI_BASE_URL: openai.url,
      ELEVENLABS_API_URL: eleven.url,
      // the company's API is the fake on 127.0.0.1
      ALLOW_PRIVATE_TOOL_URLS: 'true',
      LOG_LEVEL: 'error',
      DEMO: 'off',
    },
  });
  const api = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body instanceof FormData ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const health = async () =>
    ((await (await fetch(`${server.baseUrl}/api/v1/health`)).json()) as { event_loop?: { p99_ms: number; max_ms: number } })
      .event_loop;

  try {
    const form = new FormData();
    form.set('name', 'Bench Tools');
    form.set('email', `bench-tools-${Date.now()}@example.com`);
    form.set('password', 'bench tools password 1234');
    const { token } = (await api('POST', '/account/register', undefined, form)) as { token: string };
    for (const [name, key] of [
      ['deepgram', deepgram.key],
      ['openai', openai.apiKey],
      ['elevenlabs', eleven.key],
    ] as const)
      await api('POST', '/provider/values', token, { name, keys: [{ name: 'API Key', value: key }] });
    await api('PUT', '/billing/limits', token, { concurrencyLimit: 100, monthlySpendLimit: 100_000 });
    // the company's receiver checks every request against the signing secret, as the README tells it to
    const secret = (await api('POST', '/webhook/secret', token)) as { data: { secret: string } };
    tell({ type: 'secret', secret: secret.data.secret });
    const list = (await api('GET', '/agent?page=1&limit=1', token)) as { data: { agents: { _id: string }[] } };
    const agentId = list.data.agents[0]?._id as string;
    const full = (await api('GET', `/agent/${agentId}`, token)) as { data: { agent: Record<string, unknown> } };
    const { name, prompt, settings, editor } = full.data.agent as Record<string, Record<string, unknown>>;
    const functions = [
      {
        id: 1,
        type: 'custom',
        name: FUNCTION_NAME,
        description: 'Books a visit',
        url: `${customer.url}/visits`,
        method: 'POST',
        headers: [],
        parameters: {
          type: 'object',
          properties: { ref: { type: 'string' }, day: { type: 'string' } },
          required: ['ref', 'day'],
        },
      },
    ];
    const agent = {
      name,
      prompt,
      message: 'Hello, this is the clinic.',
      settings,
      editor: { ...editor, responsiveness: 1, interruption: 1, endCallOnSilence: 60, reminderTimes: 0, functions },
    };

    /** One web call of `turnCount` caller turns, each answered through the function. */
    async function oneCall(index: number, turnCount: number): Promise<void> {
      const callAgent = { ...agent, editor: { ...agent.editor, boostedKeywords: `tools${index}` } };
      const { data } = (await api('POST', '/call/web', token, { agent_id: agentId, agent: callAgent })) as {
        data: { call_id: string; access_token: string };
      };
      const ws = new WebSocket(
        `${server.baseUrl.replace('http', 'ws')}/api/v1/call/web/${data.call_id}/stream?token=${data.access_token}`,
      );
      let state = '';
      ws.on('message', (msg, binary) => {
        if (binary) return;
        const e = JSON.parse(String(msg)) as { type: string; value?: string };
        if (e.type === 'state' && e.value) state = e.value;
      });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      let n = 0;
      let loud = false;
      let streaming = true;
      const start = performance.now();
      const pump = (async () => {
        while (streaming && ws.readyState === ws.OPEN) {
          ws.send(frame(loud, n));
          n++;
          await sleep(Math.max(0, start + n * FRAME_MS - performance.now()));
        }
      })();
      /** waits until the call's state is (or, with `not`, leaves) `value`; false after STUCK_MS */
      const waitState = async (value: string, not = false) => {
        const until = performance.now() + STUCK_MS;
        while (not ? state === value : state !== value) {
          if (performance.now() > until) return false;
          await sleep(5);
        }
        return true;
      };
      let ok = await waitState('listening');
      await sleep(200 + (index % 10) * 37); // callers do not all speak at the same moment
      for (let turn = 0; ok && turn < turnCount; turn++) {
        loud = true;
        await sleep(600);
        loud = false;
        // the agent's turn (the function, then its answer), then the caller's again
        ok = (await waitState('listening', true)) && (await waitState('listening'));
        await sleep(100);
      }
      if (!ok) {
        stuck.push(`call ${index}: state ${state}`);
        log(`  call ${index} stuck in state ${state}`);
      }
      streaming = false;
      await pump;
      ws.send(JSON.stringify({ type: 'hangup' }));
      await new Promise((r) => ws.once('close', r));
    }

    const summary = (label: string, calls: number, turnCount: number) => {
      const done = [...turns.values()].filter((t) => t.run === label);
      if (process.env.BENCH_TOOLS_DEBUG)
        for (const [ref, t] of turns)
          if (t.run === label)
            log(
              `  ${ref} (caller turn ${t.userTurns}): sent ${t.toolCallSentAt?.toFixed(1)} api ${t.apiAt?.toFixed(1)} cont ${t.continuationAt?.toFixed(1)}`,
            );
      const complete = done.filter((t) => t.toolCallSentAt && t.apiAt && t.continuationAt);
      return {
        tool_turns: complete.length,
        caller_turns: calls * turnCount,
        incomplete_turns: done.length - complete.length,
        stuck_calls: stuck.splice(0),
        to_tool_ms: percentiles(complete.map((t) => (t.apiAt as number) - (t.toolCallSentAt as number))),
        stream_end_to_tool_ms: percentiles(complete.map((t) => (t.apiAt as number) - (t.streamEndAt ?? Number.NaN))),
        back_to_model_ms: percentiles(complete.map((t) => (t.continuationAt as number) - (t.apiAt as number))),
      };
    };

    // a short call first, not counted: the server's code is compiled on its first turns
    await oneCall(0, 2);
    await sleep(1500);
    const runs: Record<string, unknown> = {};
    for (const [calls, turnCount] of [
      [1, TURNS_ONE],
      [CONCURRENT, TURNS_MANY],
    ] as const) {
      const run = String(calls);
      tell({ type: 'run', run });
      tell({ type: 'loop.reset' });
      loop.reset();
      loop.enable();
      let serverLoop = { p99_ms: 0, max_ms: 0 };
      let polling = true;
      // the server's own figure, over its last minute, the highest reported while the calls run
      const poll = (async () => {
        while (polling) {
          const h = await health();
          if (h) serverLoop = { p99_ms: Math.max(serverLoop.p99_ms, h.p99_ms), max_ms: Math.max(serverLoop.max_ms, h.max_ms) };
          await sleep(1000);
        }
      })();
      const startedAt = performance.now();
      await Promise.all(Array.from({ length: calls }, (_, i) => oneCall(i + 1, turnCount)));
      const wallS = Math.round((performance.now() - startedAt) / 100) / 10;
      // what the hang-ups set off arrives after the calls ended
      await sleep(1500);
      polling = false;
      await poll;
      const after = await health();
      loop.disable();
      tell({ type: 'loop.read' });
      const modelLoop = await answer('loop');
      const row = {
        calls,
        turns_per_call: turnCount,
        wall_s: wallS,
        ...summary(run, calls, turnCount),
        server_event_loop: {
          p99_ms_at_end: after?.p99_ms ?? null,
          max_ms_at_end: after?.max_ms ?? null,
          highest_p99_ms: serverLoop.p99_ms,
          highest_max_ms: serverLoop.max_ms,
        },
        fakes_event_loop_p99_ms: Math.round((Math.max(0, loop.percentile(99) / 1e6 - 10) || 0) * 10) / 10,
        model_thread_event_loop_p99_ms: modelLoop.p99_ms,
        load_1min: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
      };
      runs[run] = row;
      log(
        `${calls} call(s), ${row.tool_turns} tool turns of ${row.caller_turns} (${row.incomplete_turns} incomplete): tool call -> API p50 ${row.to_tool_ms.p50} / p95 ${row.to_tool_ms.p95} / max ${row.to_tool_ms.max} ms (stream end -> API p95 ${row.stream_end_to_tool_ms.p95}); ` +
          `answer -> continuation p50 ${row.back_to_model_ms.p50} / p95 ${row.back_to_model_ms.p95} / max ${row.back_to_model_ms.max} ms; ` +
          `server event loop p99 ${row.server_event_loop.p99_ms_at_end} ms (highest ${row.server_event_loop.highest_p99_ms}); callers' thread ${row.fakes_event_loop_p99_ms} ms, model's thread ${row.model_thread_event_loop_p99_ms} ms`,
      );
    }
    tell({ type: 'check' });
    const { requests, unsigned } = await answer('checked');
    if (unsigned) throw new Error(`${unsigned} requests to the company's API were not signed as the README says`);
    writeSection('tools', {
      what: `built server (SQLite) with Deepgram, OpenAI, ElevenLabs and company-API fakes answering at once; web calls (WebSockets sending 20 ms PCM16 frames in real time) whose agent calls one custom function (POST, signed) on every caller turn`,
      budget_p95_ms: BUDGET_P95_MS,
      concurrent: CONCURRENT,
      runs,
      api_requests: requests,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: os.cpus().length,
    });
  } finally {
    await server.stop();
    tell({ type: 'close' });
    await Promise.race([answer('closed'), sleep(5000)]);
    await model.terminate();
    await Promise.all([deepgram.close(), eleven.close()]);
  }
}

await main();
