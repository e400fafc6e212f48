/**
 * The call engine's own overhead, with the provider fakes answering at once: the built server
 * (`npm start`, SQLite) runs web calls against the protocol fakes of Deepgram, OpenAI and ElevenLabs in
 * this process; callers are WebSockets sending 16 kHz PCM16 in 20 ms frames at real-time pace.
 *
 * Figures, for 1 call and for CONCURRENT simultaneous calls:
 * - turn overhead: the caller's last voiced frame -> the agent's first audio frame, minus the configured
 *   waits (the recogniser's endpointing silence, 300 ms, and the agent's end-of-turn wait, 200 ms at
 *   responsiveness 1); budget p95 <= 50 ms (1 call) and <= 100 ms (50 calls);
 * - greeting: socket open -> the first audio frame of the welcome message; budget p95 <= 100 ms;
 * - barge-in: the recogniser's SpeechStarted (sent by the Deepgram fake) -> the `clear` frame at the
 *   caller (interruption 1: no wait); budget p95 <= 20 ms;
 * - memory per call (server RSS growth / calls) and the server's event-loop delay p99 at 50 calls
 *   (GET /api/v1/health), and the agent frames that reached the caller more than a frame late.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { buildAll } from '../scripts/build.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { buildIsStale } from '../scripts/lib/stale.mjs';
import { DeepgramFake } from '../tests/fakes/deepgram.js';
import { ElevenLabsFake } from '../tests/fakes/elevenlabs.js';
import { startFakeOpenAi } from '../tests/fakes/openai.js';
import { writeSection } from './results.mjs';

const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const CONCURRENT = QUICK ? 10 : 50;
const TURNS = QUICK ? 2 : 3;
const ENDPOINTING_MS = 300;
const END_OF_TURN_MS = 200;
const FRAME_MS = 20;
const BUDGETS = { turn_p95_1: 50, turn_p95_n: 100, greeting_p95: 100, barge_in_p95: 20 };

const log = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};
const round1 = (n: number) => Math.round(n * 10) / 10;

function frame(loud: boolean, n: number): Buffer {
  const f = Buffer.alloc(640);
  if (loud)
    for (let i = 0; i < 320; i++) f.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 440 * (n * 320 + i)) / 16000)), i * 2);
  return f;
}

interface CallFigures {
  greetingMs: number;
  turnsMs: number[];
  /** the recogniser's final (speech_final) -> the agent's first frame, minus the end-of-turn wait */
  afterFinalMs: number[];
  bargeInMs: number | null;
  lateFrames: number;
  frames: number;
}

async function main() {
  if (buildIsStale()) await buildAll({ quiet: true });
  const deepgram = await DeepgramFake.start();
  const openai = await startFakeOpenAi({ chat: () => ({ text: 'Sure, I can help with that. What day suits you?' }) });
  const eleven = await ElevenLabsFake.start();
  eleven.msPerChar = 20;
  deepgram.script = Array.from({ length: 10_000 }, () => 'I would like to book a visit.');
  const server = await startServer({
    env: {
      DEEPGRAM_API_URL: deepgram.url,
      OPENAI_BASE_URL: openai.url,
      ELEVENLABS_API_URL: eleven.url,
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
  const rssKb = async () => {
    const fs = await import('node:fs');
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'));
    return m ? Number(m[1]) : Number.NaN;
  };

  try {
    const form = new FormData();
    form.set('name', 'Bench Caller');
    form.set('email', `bench-calls-${Date.now()}@example.com`);
    form.set('password', 'bench calls password 1234');
    const reg = (await api('POST', '/account/register', undefined, form)) as { token: string };
    const token = reg.token;
    for (const [name, key] of [
      ['deepgram', deepgram.key],
      ['openai', openai.apiKey],
      ['elevenlabs', eleven.key],
    ] as const)
      await api('POST', '/provider/values', token, { name, keys: [{ name: 'API Key', value: key }] });
    // web calls count against the company's concurrency limit (10 by default) like phone calls
    await api('PUT', '/billing/limits', token, { concurrencyLimit: 100, monthlySpendLimit: 100_000 });
    const list = (await api('GET', '/agent?page=1&limit=1', token)) as { data: { agents: { _id: string }[] } };
    const agentId = list.data.agents[0]?._id as string;
    const full = (await api('GET', `/agent/${agentId}`, token)) as { data: { agent: Record<string, unknown> } };
    const { name, prompt, settings, editor } = full.data.agent as Record<string, Record<string, unknown>>;
    const agent = {
      name,
      prompt,
      message: 'Hello, this is the clinic.',
      settings,
      editor: { ...editor, responsiveness: 1, interruption: 1, endCallOnSilence: 60, reminderTimes: 0 },
    };

    async function oneCall(index: number): Promise<CallFigures> {
      // a keyword of its own tells this call's recogniser stream apart in the Deepgram fake
      const tag = `bench${index}`;
      const callAgent = { ...agent, editor: { ...agent.editor, boostedKeywords: tag } };
      const { data } = (await api('POST', '/call/web', token, { agent_id: agentId, agent: callAgent })) as {
        data: { call_id: string; access_token: string };
      };
      const ws = new WebSocket(
        `${server.baseUrl.replace('http', 'ws')}/api/v1/call/web/${data.call_id}/stream?token=${data.access_token}`,
      );
      const figures: CallFigures = {
        greetingMs: Number.NaN,
        turnsMs: [],
        afterFinalMs: [],
        bargeInMs: null,
        lateFrames: 0,
        frames: 0,
      };
      let lastAgentFrameAt = 0;
      let agentFrameWaiter: ((t: number) => void) | null = null;
      let clearWaiter: ((t: number) => void) | null = null;
      let state = '';
      ws.on('message', (data, binary) => {
        const now = performance.now();
        if (binary) {
          figures.frames++;
          // the playout sends about one frame ahead: a gap well over two frames inside a turn is a late frame
          if (lastAgentFrameAt && now - lastAgentFrameAt > 2 * FRAME_MS + FRAME_MS && now - lastAgentFrameAt < 500)
            figures.lateFrames++;
          lastAgentFrameAt = now;
          agentFrameWaiter?.(now);
          agentFrameWaiter = null;
          return;
        }
        const e = JSON.parse(String(data)) as { type: string; value?: string };
        if (e.type === 'state' && e.value) state = e.value;
        if (e.type === 'clear') {
          clearWaiter?.(now);
          clearWaiter = null;
        }
      });
      const firstAgentFrame = () => new Promise<number>((resolve) => (agentFrameWaiter = resolve));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const openedAt = performance.now();
      figures.greetingMs = (await firstAgentFrame()) - openedAt;
      // the caller streams real time from now on: silence, speech, silence...
      let n = 0;
      let loud = false;
      let streaming = true;
      const start = performance.now();
      const pump = (async () => {
        while (streaming && ws.readyState === ws.OPEN) {
          ws.send(frame(loud, n));
          n++;
          const due = start + n * FRAME_MS;
          await sleep(Math.max(0, due - performance.now()));
        }
      })();
      const waitState = async (value: string) => {
        while (state !== value) await sleep(5);
      };
      await waitState('listening');
      await sleep(200 + (index % 10) * 37); // callers do not all speak at the same moment
      for (let turn = 0; turn < TURNS; turn++) {
        loud = true;
        await sleep(600);
        loud = false;
        const lastVoicedAt = performance.now();
        const answer = await firstAgentFrame();
        figures.turnsMs.push(answer - lastVoicedAt - ENDPOINTING_MS - END_OF_TURN_MS);
        const final = speechFinals(tag).find((t) => t > lastVoicedAt - FRAME_MS && t < answer);
        if (final !== undefined) figures.afterFinalMs.push(answer - final - END_OF_TURN_MS);
        if (turn === TURNS - 1) {
          // barge-in: talk over the answer
          await sleep(300);
          const before = speechStarts(tag).length;
          loud = true;
          const clearedAt = await new Promise<number>((resolve) => (clearWaiter = resolve));
          loud = false;
          const started = speechStarts(tag)[before];
          figures.bargeInMs = started !== undefined ? clearedAt - started : null;
        } else {
          await waitState('listening');
          await sleep(100);
        }
      }
      streaming = false;
      await pump;
      ws.send(JSON.stringify({ type: 'hangup' }));
      await new Promise((r) => ws.once('close', r));
      return figures;
    }

    /** When the Deepgram fake sent the messages that `pick` selects, on the stream of the call tagged `tag`. */
    function sentTimes(tag: string, pick: (m: Record<string, unknown>) => boolean): number[] {
      const stream = deepgram.streams.find((st) => st.query.getAll('keywords').includes(`${tag}:2`));
      if (!stream) return [];
      return stream.sent.flatMap((m, i) => (pick(m) ? [stream.sentAt[i] as number] : []));
    }
    const speechStarts = (tag: string) => sentTimes(tag, (m) => m.type === 'SpeechStarted');
    const speechFinals = (tag: string) => sentTimes(tag, (m) => m.type === 'Results' && m.speech_final === true);

    const runs: Record<string, unknown> = {};
    for (const calls of [1, CONCURRENT]) {
      const rssBefore = await rssKb();
      const results = await Promise.all(Array.from({ length: calls }, (_, i) => oneCall(i)));
      const health = (await (await fetch(`${server.baseUrl}/api/v1/health`)).json()) as { event_loop?: { p99_ms?: number } };
      const rssAfter = await rssKb();
      const turns = results.flatMap((r) => r.turnsMs);
      const afterFinal = results.flatMap((r) => r.afterFinalMs);
      const greetings = results.map((r) => r.greetingMs);
      const bargeIns = results.map((r) => r.bargeInMs).filter((x): x is number => x !== null);
      const row = {
        calls,
        turns: turns.length,
        turn_overhead_p50_ms: round1(pct(turns, 50)),
        turn_overhead_p95_ms: round1(pct(turns, 95)),
        after_final_p50_ms: round1(pct(afterFinal, 50)),
        after_final_p95_ms: round1(pct(afterFinal, 95)),
        greeting_p50_ms: round1(pct(greetings, 50)),
        greeting_p95_ms: round1(pct(greetings, 95)),
        barge_in_p50_ms: round1(pct(bargeIns, 50)),
        barge_in_p95_ms: round1(pct(bargeIns, 95)),
        barge_ins: bargeIns.length,
        late_frames: results.reduce((a, r) => a + r.lateFrames, 0),
        agent_frames: results.reduce((a, r) => a + r.frames, 0),
        rss_growth_per_call_kib: Math.round((rssAfter - rssBefore) / calls),
        server_rss_mib: Math.round(rssAfter / 1024),
        event_loop_p99_ms: health.event_loop?.p99_ms ?? null,
      };
      runs[String(calls)] = row;
      log(
        `${calls} call(s): turn overhead p50 ${row.turn_overhead_p50_ms} ms, p95 ${row.turn_overhead_p95_ms} ms (after the final transcript: p95 ${row.after_final_p95_ms} ms); greeting p95 ${row.greeting_p95_ms} ms; barge-in p95 ${row.barge_in_p95_ms} ms (${row.barge_ins}); late frames ${row.late_frames}/${row.agent_frames}; RSS +${row.rss_growth_per_call_kib} KiB/call; event loop p99 ${row.event_loop_p99_ms ?? 'n/a'} ms`,
      );
    }
    writeSection('callEngine', {
      what: 'built server (SQLite) with Deepgram, OpenAI and ElevenLabs protocol fakes answering at once; callers are WebSockets sending 20 ms PCM16 frames in real time',
      configured_waits_ms: { endpointing: ENDPOINTING_MS, end_of_turn: END_OF_TURN_MS, barge_in: 0 },
      budgets: BUDGETS,
      concurrent: CONCURRENT,
      runs,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: os.cpus().length,
    });
  } finally {
    await server.stop();
    await Promise.all([deepgram.close(), openai.close(), eleven.close()]);
  }
}

await main();
