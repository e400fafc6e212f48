/**
 * Simultaneous phone calls through the fake Twilio media stream: the built server (`npm start`,
 * SQLite) answers CONCURRENT inbound calls to one number; each is the fake Twilio's signed voice webhook,
 * the TwiML's <Connect><Stream>, and a signed media WebSocket that sends the caller's mu-law 8 kHz audio in
 * 20 ms frames on its own clock and "plays" Parley's audio at real time. Speech, LLM and voice are the
 * protocol fakes answering at once (bench/phone-lib.ts).
 *
 * Figures:
 * - turn overhead: the caller's last voiced frame sent -> the first agent media frame received, minus the
 *   configured waits (the recogniser's endpointing silence, 300 ms, and the agent's end-of-turn wait,
 *   200 ms at responsiveness 1); budget p95 <= 100 ms at 50 calls;
 * - late frames: inside each agent utterance, frame k is due when the bytes before it have played from the
 *   utterance's first frame (8 bytes a millisecond); a frame arriving more than 20 ms after it is due is late
 *   (the caller would hear a gap). Target: none.
 * - the server's CPU time per second of call (user + system, /proc; CLK_TCK 100): what a call costs
 *   whatever else the machine runs, and the share of one core the server had during the run;
 * - the server's event-loop delay p99 at the end (GET /api/v1/health), and this process's (the fakes and the
 *   callers run here: a delay here makes frames look late that Parley sent on time).
 */
import fs from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { buildAll } from '../scripts/build.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { buildIsStale } from '../scripts/lib/stale.mjs';
import type { FakeMediaStream } from '../tests/fakes/twilio.js';
import { percentiles } from './lib.js';
import { END_OF_TURN_MS, ENDPOINTING_MS, FRAME_MS, log, phoneCompany, round1, sleep, startPhoneFakes } from './phone-lib.js';
import { QUICK, writeSection } from './results.mjs';

const CONCURRENT = QUICK ? 10 : 50;
const TURNS = QUICK ? 2 : 3;
/**
 * The simultaneous calls run this many times, one after another: on a shared 2-core machine one run can
 * land on a busy minute; the report shows the median run (by turn overhead p95) and lists them all.
 */
const REPEATS = QUICK ? 1 : 3;
const BUDGETS = { turn_p95_ms: 100, late_frames: 0, late_by_ms: 20 };
const NUMBER = '+14155550100';
/** a pause this long in the agent's audio ends an utterance */
const UTTERANCE_GAP_MS = 300;

interface CallFigures {
  turnsMs: number[];
  /** how long the media stream was open */
  seconds: number;
  frames: number;
  lateFrames: number;
  maxLateMs: number;
}

/**
 * Waits (bounded) until `check` answers something. It looks every 20 ms: the figures come from the times
 * the fake stamped on each frame, not from when this loop sees them, and 50 calls polling faster would take
 * CPU from the server on this 2-core machine.
 */
async function until<T>(check: () => T | undefined | false, what: string, ms = 30_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (performance.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(FRAME_MS);
  }
}

/** CPU time (user + system) a process has used, in ms (Linux /proc, 100 ticks a second). */
function cpuMs(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // after the command: state is field 3, utime 14 and stime 15 (1-based over the whole line)
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Late frames of a stream's agent audio (see the header). */
function lateness(stream: FakeMediaStream) {
  let late = 0;
  let maxLate = 0;
  let start = 0;
  let playedMs = 0;
  let prev = Number.NEGATIVE_INFINITY;
  for (const m of stream.mediaAt) {
    if (m.at - prev > UTTERANCE_GAP_MS) {
      start = m.at;
      playedMs = 0;
    }
    const lateBy = m.at - (start + playedMs);
    if (lateBy > BUDGETS.late_by_ms) late++;
    maxLate = Math.max(maxLate, lateBy);
    playedMs += m.bytes / 8;
    prev = m.at;
  }
  return { late, maxLate };
}

async function main() {
  if (buildIsStale()) await buildAll({ quiet: true });
  const fakes = await startPhoneFakes();
  const server = await startServer({ env: { ...fakes.env, LOG_LEVEL: 'error', DEMO: 'off' } });
  try {
    await phoneCompany(server.baseUrl, fakes, { phone: NUMBER, direction: 'inbound', concurrencyLimit: 100 });
    const voiceUrl = `${server.baseUrl}/api/v1/telephony/twilio/voice`;

    /** Waits until the agent has been quiet for an utterance gap. */
    const quiet = (stream: FakeMediaStream) =>
      until(() => {
        const last = stream.mediaAt.at(-1);
        return last !== undefined && performance.now() - last.at > UTTERANCE_GAP_MS;
      }, 'the agent to finish');

    async function oneCall(index: number): Promise<CallFigures> {
      const caller = `+1312555${String(1000 + index)}`;
      const { call, webhookStatus } = await fakes.twilio.inbound(voiceUrl, caller, NUMBER);
      if (webhookStatus !== 200) throw new Error(`voice webhook answered ${webhookStatus}`);
      const stream = await until(() => call.stream, 'the media stream');
      await stream.opened;
      const openedAt = performance.now();
      // the greeting, then the caller speaks TURNS times, each time after the agent's answer
      await until(() => stream.mediaAt.length > 0, 'the greeting');
      await quiet(stream);
      await sleep((index % 10) * 37); // callers do not all speak at the same moment
      const turnsMs: number[] = [];
      for (let turn = 0; turn < TURNS; turn++) {
        const voiced = stream.voicedAt.length;
        stream.say(600, 0);
        await until(() => stream.voicedAt.length >= voiced + 600 / FRAME_MS, 'the caller to speak');
        const lastVoicedAt = stream.voicedAt.at(-1) as number;
        const answer = await until(() => {
          // the first agent frame after the caller's last voiced one (scanning back from the newest)
          let first: { at: number } | undefined;
          for (let i = stream.mediaAt.length - 1; i >= 0 && (stream.mediaAt[i]?.at ?? 0) > lastVoicedAt; i--)
            first = stream.mediaAt[i];
          return first;
        }, 'the answer');
        turnsMs.push(answer.at - lastVoicedAt - ENDPOINTING_MS - END_OF_TURN_MS);
        await quiet(stream);
        await sleep(100);
      }
      fakes.twilio.hangUpCaller(call);
      await call.done;
      if (stream.violations.length) throw new Error(`stream violations: ${stream.violations.join(', ')}`);
      const { late, maxLate } = lateness(stream);
      return {
        turnsMs,
        seconds: (performance.now() - openedAt) / 1000,
        frames: stream.mediaAt.length,
        lateFrames: late,
        maxLateMs: maxLate,
      };
    }

    const runs: Record<string, unknown> = {};
    const repeats: Record<string, number | null>[] = [];
    for (const calls of [1, ...Array.from({ length: REPEATS }, () => CONCURRENT)]) {
      const here = monitorEventLoopDelay({ resolution: 5 });
      here.enable();
      const cpuBefore = cpuMs(server.pid);
      const runStart = performance.now();
      const results = await Promise.all(Array.from({ length: calls }, (_, i) => oneCall(i)));
      const runMs = performance.now() - runStart;
      const cpuUsed = cpuMs(server.pid) - cpuBefore;
      const callSeconds = results.reduce((a, r) => a + r.seconds, 0);
      const health = (await (await fetch(`${server.baseUrl}/api/v1/health`)).json()) as { event_loop?: { p99_ms?: number } };
      const turns = percentiles(results.flatMap((r) => r.turnsMs));
      const row = {
        calls,
        turns: results.reduce((a, r) => a + r.turnsMs.length, 0),
        turn_overhead_p50_ms: round1(turns.p50),
        turn_overhead_p95_ms: round1(turns.p95),
        turn_overhead_max_ms: round1(turns.max),
        agent_frames: results.reduce((a, r) => a + r.frames, 0),
        late_frames: results.reduce((a, r) => a + r.lateFrames, 0),
        max_late_ms: round1(Math.max(...results.map((r) => r.maxLateMs))),
        event_loop_p99_ms: health.event_loop?.p99_ms ?? null,
        fakes_event_loop_p99_ms: round1(here.percentile(99) / 1e6),
        server_cpu_ms_per_call_s: round1(cpuUsed / callSeconds),
        server_cpu_share_of_core: Math.round((cpuUsed / runMs) * 100) / 100,
      };
      here.disable();
      if (calls === CONCURRENT) {
        repeats.push({
          turn_overhead_p95_ms: row.turn_overhead_p95_ms,
          late_frames: row.late_frames,
          agent_frames: row.agent_frames,
          event_loop_p99_ms: row.event_loop_p99_ms,
          server_cpu_share_of_core: row.server_cpu_share_of_core,
          load_1min: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
        });
        const done = (runs[String(calls)] as { all?: unknown[] } | undefined)?.all ?? [];
        const all = [...done, row] as (typeof row)[];
        const median = [...all].sort((a, b) => a.turn_overhead_p95_ms - b.turn_overhead_p95_ms)[Math.floor((all.length - 1) / 2)];
        runs[String(calls)] = { ...median, all };
      } else runs[String(calls)] = row;
      log(
        `${calls} phone call(s): turn overhead p50 ${row.turn_overhead_p50_ms} ms, p95 ${row.turn_overhead_p95_ms} ms (max ${row.turn_overhead_max_ms}); late frames ${row.late_frames}/${row.agent_frames} (latest ${row.max_late_ms} ms after due); event loop p99 ${row.event_loop_p99_ms ?? 'n/a'} ms (the fakes' ${row.fakes_event_loop_p99_ms} ms); server CPU ${row.server_cpu_ms_per_call_s} ms per call-second, ${row.server_cpu_share_of_core} of a core`,
      );
    }
    writeSection('phoneCalls', {
      what: 'built server (SQLite), inbound calls through the fake Twilio (signed voice webhook, TwiML <Stream>, a media WebSocket of mu-law 8 kHz in 20 ms frames on a clock, audio played at real time); Deepgram, OpenAI and ElevenLabs protocol fakes answering at once',
      configured_waits_ms: { endpointing: ENDPOINTING_MS, end_of_turn: END_OF_TURN_MS },
      budgets: BUDGETS,
      concurrent: CONCURRENT,
      runs: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, { ...(v as object), all: undefined }])),
      repeats,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: os.cpus().length,
    });
  } finally {
    await server.stop();
    await fakes.close();
  }
}

await main();
