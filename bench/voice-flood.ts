/**
 * Voice surfaces under attack: the built server (`npm start`, SQLite) while two tenants attack it, and a
 * third client asks GET /api/v1/health one request after another.
 *
 * - Tenant A floods web calls on FLOOD_CALLS lanes, each starting a new call as soon as the server ended
 *   its last one: its browser socket on /api/v1/call/web/{id}/stream sends
 *   10,240-byte binary frames as fast as the socket takes them (the attack of the hardening docs,
 *   docs/call-runtime.md 'Limits on a line').
 * - Tenant B points its OpenAI Base URL at a server of its own that drips one SSE line in 512-byte pieces
 *   (`data: ` then up to 1 MB), and runs DRIP_CHATS Test LLM chats against it in loops.
 *
 * The attackers run in a child process started with `nice -n 19` (the machine is shared: the attacker's own
 * CPU is not what is measured), the server and the health client in the foreground.
 *
 * Reports: GET /health latency (p50/p95/p99/max) for BASELINE_S before the attack and ATTACK_S during it
 * (budget: p99 <= 50 ms during), the server's own event-loop delay as /health reports it, and per flooded
 * call the bytes sent and dropped, the recording's size, the billed STT seconds against the call's duration
 * and why it ended.
 *
 *   npx tsx bench/voice-flood.ts     prints the figures and writes the `voiceFlood` section of bench/results.json
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { buildAll } from '../scripts/build.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { buildIsStale } from '../scripts/lib/stale.mjs';
import { DeepgramFake } from '../tests/fakes/deepgram.js';
import { ElevenLabsFake } from '../tests/fakes/elevenlabs.js';
import { startFakeOpenAi } from '../tests/fakes/openai.js';
import { latencySummary, type Percentiles, poller, QUICK } from './lib.js';
import { writeSection } from './results.mjs';

export const BUDGET_HEALTH_P99_MS = 50;
const BASELINE_S = QUICK ? 2 : 5;
const ATTACK_S = QUICK ? 8 : 20;
/** flooding lanes of tenant A: each starts a new web call as soon as the server ended its last one */
const FLOOD_CALLS = 2;
const SHOWN_CALLS = 4;
const DRIP_CHATS = 3;
const FLOOD_FRAME_BYTES = 10_240;
const DRIP_LINE_BYTES = 1024 * 1024;
const DRIP_PIECE_BYTES = 512;

const log = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface AttackPlan {
  baseUrl: string;
  /** tenant A: its token and agent (each lane starts web calls one after another) */
  floodToken: string;
  floodAgentId: string;
  chatToken: string;
  agentId: string;
  seconds: number;
}

interface FloodedCall {
  call_id: string;
  sent_bytes: number;
  seconds_open: number;
  closed_by_server: boolean;
  /** the reason of the server's `ended` frame, when it sent one */
  ended_reason: string | null;
  recording_bytes: number | null;
  billed_stt_seconds: number | null;
  duration_s: number | null;
  disconnection_reason: string | null;
}

export interface VoiceFloodBench {
  health_baseline_ms: Percentiles & { requests: number };
  health_during_ms: Percentiles & { requests: number };
  server_event_loop: { p99_ms: number; max_ms: number; samples: number };
  /** health requests that failed (connection refused or reset, not 200) */
  health_errors: number;
  /** the first SHOWN_CALLS flooded calls */
  flooded_calls: FloodedCall[];
  /** every flooded call, summed up */
  flood: {
    calls: number;
    /** why a new web call was refused (e.g. the concurrency limit), once each */
    refused: string[];
    sent_bytes: number;
    max_recording_bytes: number;
    max_billed_stt_seconds: number;
    max_duration_s: number;
    reasons: Record<string, number>;
  };
  drip: { chats: number; messages_answered: number; errors: string[] };
  attack_s: number;
  budget_p99_ms: number;
  pass: boolean;
  load_average: number[];
  cpus: number;
  what: string;
}

// ---------------------------------------------------------------------------------------------
// The attacker (the niced child process)

/** A tenant's own "OpenAI-compatible" server: every answer is one SSE line dripped in 512-byte pieces. */
function startDripServer(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.write('data: ');
    const piece = 'a'.repeat(DRIP_PIECE_BYTES);
    let sent = 0;
    const next = () => {
      if (res.destroyed || sent >= DRIP_LINE_BYTES) {
        res.end();
        return;
      }
      sent += DRIP_PIECE_BYTES;
      // one piece a write: each reaches the server as its own small chunk
      if (res.write(piece)) setImmediate(next);
      else res.once('drain', next);
    };
    next();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close() });
    }),
  );
}

async function attack(plan: AttackPlan): Promise<void> {
  const until = performance.now() + plan.seconds * 1000;
  const frame = Buffer.alloc(FLOOD_FRAME_BYTES, 1);
  type Flooded = Omit<FloodedCall, 'recording_bytes' | 'billed_stt_seconds' | 'duration_s' | 'disconnection_reason'>;
  /** One web call flooded until the server closes it (or the attack's time is up). */
  const floodOne = (callId: string, token: string) =>
    new Promise<Flooded>((resolve) => {
      const ws = new WebSocket(`${plan.baseUrl.replace('http', 'ws')}/api/v1/call/web/${callId}/stream?token=${token}`);
      let sent = 0;
      let endedReason: string | null = null;
      let closedByServer = true;
      const openedAt = performance.now();
      ws.on('message', (data, binary) => {
        if (binary) return;
        const e = JSON.parse(String(data)) as { type: string; reason?: string };
        if (e.type === 'ended') endedReason = e.reason ?? null;
      });
      const pump = () => {
        while (ws.readyState === ws.OPEN && performance.now() < until && ws.bufferedAmount < 1024 * 1024) {
          ws.send(frame, { binary: true });
          sent += frame.byteLength;
        }
        if (ws.readyState !== ws.OPEN) return;
        if (performance.now() >= until) {
          closedByServer = false;
          ws.close();
          return;
        }
        setImmediate(pump);
      };
      ws.on('open', pump);
      ws.on('error', () => {});
      ws.on('close', () =>
        resolve({
          call_id: callId,
          sent_bytes: sent,
          seconds_open: Math.round((performance.now() - openedAt) / 100) / 10,
          closed_by_server: closedByServer,
          ended_reason: endedReason,
        }),
      );
    });
  // each lane starts a new web call as soon as the server ends the last one, until the time is up
  const refusals = new Set<string>();
  const lanes = Array.from({ length: FLOOD_CALLS }, async () => {
    const done: Flooded[] = [];
    while (performance.now() < until) {
      const res = await fetch(`${plan.baseUrl}/api/v1/call/web`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${plan.floodToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent_id: plan.floodAgentId }),
      });
      const body = (await res.json()) as { data?: { call_id: string; access_token: string }; msg?: string };
      if (!body.data) {
        refusals.add(`POST /call/web ${res.status}: ${body.msg ?? ''}`);
        await sleep(200);
        continue;
      }
      done.push(await floodOne(body.data.call_id, body.data.access_token));
    }
    return done;
  });
  let answered = 0;
  const errors = new Set<string>();
  const chats = Array.from({ length: DRIP_CHATS }, async () => {
    while (performance.now() < until) {
      const headers = { Authorization: `Bearer ${plan.chatToken}`, 'Content-Type': 'application/json' };
      const started = await fetch(`${plan.baseUrl}/api/v1/chat`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ agent_id: plan.agentId }),
      });
      const body = (await started.json()) as { data?: { chat_id: string }; msg?: string };
      if (!body.data) {
        errors.add(`POST /chat ${started.status}: ${body.msg ?? ''}`);
        await sleep(500);
        continue;
      }
      const res = await fetch(`${plan.baseUrl}/api/v1/chat/${body.data.chat_id}/message`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ content: 'Hello?' }),
      });
      const text = await res.text();
      const error = /"type":"error"[^}]*"message":"([^"]*)"/.exec(text)?.[1];
      if (error) errors.add(error);
      answered++;
    }
  });
  const calls = (await Promise.all(lanes)).flat();
  await Promise.all(chats);
  const drip = { chats: DRIP_CHATS, messages_answered: answered, errors: [...errors] };
  process.stdout.write(`${JSON.stringify({ calls, refusals: [...refusals], drip })}\n`);
}

// ---------------------------------------------------------------------------------------------
// The measurement (the foreground)

async function api<T>(baseUrl: string, method: string, p: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}/api/v1${p}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body instanceof FormData || body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function signUp(baseUrl: string, name: string): Promise<{ token: string; companyId: string; agentId: string }> {
  const form = new FormData();
  form.set('name', name);
  form.set('email', `bench-flood-${name.replace(/\W/g, '')}-${Date.now()}@example.com`);
  form.set('password', 'voice flood bench password 1234');
  const reg = await api<{ token: string; account: { companyId: string } }>(baseUrl, 'POST', '/account/register', undefined, form);
  const list = await api<{ data: { agents: { _id: string }[] } }>(baseUrl, 'GET', '/agent?page=1&limit=1', reg.token);
  return { token: reg.token, companyId: reg.account.companyId, agentId: list.data.agents[0]?._id as string };
}

export async function run(): Promise<VoiceFloodBench> {
  if (buildIsStale()) await buildAll({ quiet: true });
  const deepgram = await DeepgramFake.start();
  const openai = await startFakeOpenAi({ chat: () => ({ text: 'Sure.' }) });
  const eleven = await ElevenLabsFake.start();
  const drip = await startDripServer();
  const server = await startServer({
    env: {
      DEEPGRAM_API_URL: deepgram.url,
      OPENAI_BASE_URL: openai.url,
      ELEVENLABS_API_URL: eleven.url,
      // tenant B's Base URL is on this machine
      ALLOW_PRIVATE_PROVIDER_URLS: 'true',
      LOG_LEVEL: 'error',
      DEMO: 'off',
    },
  });
  try {
    const a = await signUp(server.baseUrl, 'Flood Tenant');
    const b = await signUp(server.baseUrl, 'Drip Tenant');
    for (const [name, key] of [
      ['deepgram', deepgram.key],
      ['openai', openai.apiKey],
      ['elevenlabs', eleven.key],
    ] as const)
      await api(server.baseUrl, 'POST', '/provider/values', a.token, { name, keys: [{ name: 'API Key', value: key }] });
    await api(server.baseUrl, 'POST', '/provider/values', b.token, {
      name: 'openai',
      keys: [
        { name: 'API Key', value: 'sk-drip-tenant-key' },
        { name: 'Base URL', value: drip.url },
      ],
    });
    const serverLoop = { p99_ms: 0, max_ms: 0, samples: 0 };
    let healthErrors = 0;
    const health = async (during: boolean) => {
      const res = await fetch(`${server.baseUrl}/api/v1/health`).catch(() => undefined);
      const body = ((await res?.json().catch(() => undefined)) ?? {}) as { event_loop?: { p99_ms: number; max_ms: number } };
      if (!res?.ok) healthErrors++;
      if (during && body.event_loop) {
        serverLoop.samples++;
        serverLoop.p99_ms = Math.max(serverLoop.p99_ms, body.event_loop.p99_ms);
        serverLoop.max_ms = Math.max(serverLoop.max_ms, body.event_loop.max_ms);
      }
    };
    const baseline = poller(() => health(false), 20);
    await sleep(BASELINE_S * 1000);
    await baseline.stop();

    const plan: AttackPlan = {
      baseUrl: server.baseUrl,
      floodToken: a.token,
      floodAgentId: a.agentId,
      chatToken: b.token,
      agentId: b.agentId,
      seconds: ATTACK_S,
    };
    const child = spawn(
      'nice',
      ['-n', '19', process.execPath, path.join(root, 'node_modules/tsx/dist/cli.mjs'), thisFile, '--attacker'],
      {
        cwd: root,
        env: { ...process.env, VOICE_FLOOD_PLAN: JSON.stringify(plan) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
    await sleep(1000); // the sockets open and the first drips start
    const during = poller(() => health(true), 20);
    await exited;
    await during.stop();
    const attackResult = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as {
      calls: Omit<FloodedCall, 'recording_bytes' | 'billed_stt_seconds' | 'duration_s' | 'disconnection_reason'>[];
      refusals: string[];
      drip: VoiceFloodBench['drip'];
    };

    // the calls are stored once their sockets closed
    const flooded: FloodedCall[] = [];
    for (const c of attackResult.calls ?? []) {
      let call: {
        end_time?: string | null;
        duration?: number;
        usage?: { stt_seconds?: number } | null;
        disconnection_reason?: string;
      } = {};
      for (let i = 0; i < 100; i++) {
        call = (await api<{ data: typeof call }>(server.baseUrl, 'GET', `/call/${c.call_id}`, a.token)).data;
        if (call.end_time) break;
        await sleep(100);
      }
      const wav = path.join(server.dataDir, 'recordings', a.companyId, `${c.call_id}.wav`);
      flooded.push({
        ...c,
        recording_bytes: fs.existsSync(wav) ? fs.statSync(wav).size : null,
        billed_stt_seconds: call.usage?.stt_seconds ?? null,
        duration_s: call.duration ?? null,
        disconnection_reason: call.disconnection_reason ?? null,
      });
    }
    const during_ms = latencySummary(during.times);
    return {
      health_baseline_ms: latencySummary(baseline.times),
      health_during_ms: during_ms,
      server_event_loop: serverLoop,
      health_errors: healthErrors,
      flooded_calls: flooded.slice(0, SHOWN_CALLS),
      flood: {
        calls: flooded.length,
        refused: attackResult.refusals ?? [],
        sent_bytes: flooded.reduce((n, c) => n + c.sent_bytes, 0),
        max_recording_bytes: Math.max(0, ...flooded.map((c) => c.recording_bytes ?? 0)),
        max_billed_stt_seconds: Math.max(0, ...flooded.map((c) => c.billed_stt_seconds ?? 0)),
        max_duration_s: Math.max(0, ...flooded.map((c) => c.duration_s ?? 0)),
        reasons: flooded.reduce<Record<string, number>>((acc, c) => {
          const reason = c.disconnection_reason ?? c.ended_reason ?? 'unknown';
          acc[reason] = (acc[reason] ?? 0) + 1;
          return acc;
        }, {}),
      },
      drip: attackResult.drip ?? { chats: DRIP_CHATS, messages_answered: 0, errors: ['the attacker reported nothing'] },
      attack_s: ATTACK_S,
      budget_p99_ms: BUDGET_HEALTH_P99_MS,
      pass: during_ms.p99 <= BUDGET_HEALTH_P99_MS && healthErrors === 0,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: os.cpus().length,
      what: `npm start (built, SQLite) on loopback; tenant A floods web calls on ${FLOOD_CALLS} lanes (a new call as soon as the server ends one) with ${FLOOD_FRAME_BYTES.toLocaleString('en')}-byte frames as fast as the sockets take them, tenant B runs ${DRIP_CHATS} Test LLM chats in loops against its own Base URL that drips a 1 MB SSE line in ${DRIP_PIECE_BYTES}-byte pieces; the attackers run under nice -n 19; one client asks GET /api/v1/health back to back (20 ms apart)`,
    };
  } finally {
    await server.stop();
    drip.close();
    await Promise.all([deepgram.close(), openai.close(), eleven.close()]);
  }
}

const thisFile = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(thisFile), '..');

if (process.argv[1] && path.resolve(process.argv[1]) === thisFile) {
  if (process.argv.includes('--attacker')) {
    await attack(JSON.parse(process.env.VOICE_FLOOD_PLAN ?? '{}') as AttackPlan);
  } else {
    const r = await run();
    const lat = (p: Percentiles) => `p50 ${p.p50} ms, p95 ${p.p95} ms, p99 ${p.p99} ms, max ${p.max} ms`;
    log(`GET /health before: ${lat(r.health_baseline_ms)} (${r.health_baseline_ms.requests} requests)`);
    log(
      `GET /health during: ${lat(r.health_during_ms)} (${r.health_during_ms.requests} requests, ${r.health_errors} failed) ${r.pass ? 'PASS' : 'FAIL'}`,
    );
    log(`server event loop during: p99 ${r.server_event_loop.p99_ms} ms, max ${r.server_event_loop.max_ms} ms`);
    for (const c of r.flooded_calls)
      log(
        `flooded call ${c.call_id}: sent ${(c.sent_bytes / 1024 / 1024).toFixed(1)} MiB in ${c.seconds_open} s; recording ${c.recording_bytes === null ? 'none' : `${(c.recording_bytes / 1024 / 1024).toFixed(2)} MiB`}; billed STT ${c.billed_stt_seconds} s for ${c.duration_s} s; ended: ${c.disconnection_reason ?? c.ended_reason ?? (c.closed_by_server ? 'closed by the server' : 'the attacker stopped')}`,
      );
    log(
      `flood: ${r.flood.calls} calls, ${(r.flood.sent_bytes / 1024 / 1024).toFixed(1)} MiB sent; largest recording ${(r.flood.max_recording_bytes / 1024).toFixed(0)} KiB; most STT billed ${r.flood.max_billed_stt_seconds} s (longest call ${r.flood.max_duration_s} s); ended: ${JSON.stringify(r.flood.reasons)}; refused: ${r.flood.refused.join(' | ') || 'none'}`,
    );
    log(`drip chats: ${r.drip.messages_answered} messages answered; errors: ${r.drip.errors.join(' | ') || 'none'}`);
    writeSection('voiceFlood', r);
  }
}
