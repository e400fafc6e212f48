/**
 * Load benchmark (docs/reliability.md, "Load"): the built server started like `npm start` (SQLite in a
 * temporary DATA_DIR) serving one company with 1,000,000 calls (seeded beforehand by the code of
 * `npm run seed`) and 200 agents, driven over loopback by autocannon:
 *
 * 1. The mix: 50 concurrent clients for 30 s, each signed in with its own session and owning one agent,
 *    cycling through list agents (sorted, sometimes searched), call history (first page, filtered by
 *    status + date range, by type + status, by number, sorted by duration), get its agent, update its
 *    agent (with the version it read, so never a conflict) and refresh its tokens (refresh tokens
 *    rotate: each client follows its own chain). Reports throughput, p50/p95/p99 overall and per
 *    route, and errors (budget: 0 errors, 0 non-2xx answers).
 * 2. The login flood: 200 concurrent clients sending wrong passwords (a fresh email every time, the
 *    costliest case: no per-email limit helps) for 15 s while 10 clients run the mix; the mix's p99
 *    then is held to 250 ms, and compared with the same 10 clients without the flood.
 *
 *   npx tsx bench/load.ts            the full run; writes the `load` section of bench/results.json
 *   npx tsx bench/load.ts --quick    (or BENCH_QUICK=1) 100,000 calls and short phases, for development
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon, { type AutocannonClient, type AutocannonRequest, type AutocannonResult } from 'autocannon';
import * as v from 'valibot';
import { buildAll } from '../scripts/build.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { buildIsStale } from '../scripts/lib/stale.mjs';
import { companyEvents } from '../server/compose.js';
import { docOf, insertAgentRows, newAgentRow } from '../server/modules/agents/agent.repo.js';
import { SAMPLE_AGENT_PAYLOAD } from '../server/modules/agents/sample-agent.js';
import { seededRng } from '../server/modules/company/call-generator.js';
import { addPoolNumbers, ensureWorkspace } from '../server/modules/company/workspace.js';
import { openDatabase } from '../server/platform/db/index.js';
import { agentListParams } from '../src/api/contract/agent/query.js';
import { AgentSavePayloadSchema } from '../src/api/contract/agent/save.js';
import { type CallListParams, callListParams } from '../src/api/contract/call.js';
import { type Percentiles, percentiles, QUICK, seedCallsTimed } from './lib.js';

export const CALLS = Number(process.env.CALLS ?? (QUICK ? 100_000 : 1_000_000));
export const AGENTS = 200;
export const CONNECTIONS = 50;
export const DURATION_S = QUICK ? 5 : 30;
const WARMUP_S = 3;
export const FLOOD_CONNECTIONS = 200;
export const FLOOD_MIX_CONNECTIONS = 10;
export const FLOOD_DURATION_S = QUICK ? 5 : 15;
export const BUDGET_ERRORS = 0;
export const BUDGET_FLOOD_P99_MS = 250;
const DAYS = 365;
const EMAIL = 'load@parley.test';

interface Session {
  access: string;
  refresh: string;
  agentId: string;
  version: number;
}

/** Latencies (ms) and status counts, per route kind. */
class Recorder {
  readonly byRoute = new Map<string, number[]>();
  readonly statuses = new Map<string, Record<string, number>>();
  /** `ms` undefined: counted, not timed */
  record(route: string, ms: number | undefined, status: number) {
    const list = this.byRoute.get(route) ?? [];
    this.byRoute.set(route, list);
    if (ms !== undefined) list.push(ms);
    const counts = this.statuses.get(route) ?? {};
    counts[status] = (counts[status] ?? 0) + 1;
    this.statuses.set(route, counts);
  }
  summary() {
    const all = [...this.byRoute.values()].flat();
    return {
      latency_ms: percentiles(all),
      routes: [...this.byRoute.entries()]
        .map(([route, ms]) => ({
          route,
          requests: Object.values(this.statuses.get(route) ?? {}).reduce((a, b) => a + b, 0),
          timed: ms.length,
          statuses: this.statuses.get(route) ?? {},
          latency_ms: percentiles(ms),
        }))
        .sort((a, b) => a.route.localeCompare(b.route)),
    };
  }
}

/**
 * Which route a connection's last answer was for: a request's onResponse runs just before autocannon's
 * 'response' event, which carries the latency autocannon measured from writing the request.
 */
interface Last {
  route: string;
}

/**
 * Records the answers of `client` under the route of their request, all but the first: autocannon
 * writes the first request while the connection is still opening, so its time includes the TCP
 * handshake of a burst of new connections (up to a 1 s SYN retransmit when they overflow the listen
 * queue), not the server's answer. Its status is counted all the same.
 */
function track(client: AutocannonClient, rec: Recorder): Last {
  const last: Last = { route: '?' };
  let first = true;
  client.on('response', (status, _bytes, ms) => {
    rec.record(last.route, first ? undefined : ms, status);
    first = false;
  });
  return last;
}

/** One request kind of a connection's cycle: `build` makes it from the client's state, `done` reads the answer. */
function timed(
  last: Last,
  route: string,
  build: () => Omit<AutocannonRequest, 'setupRequest' | 'onResponse'>,
  done?: (status: number, body: string) => void,
): AutocannonRequest {
  return {
    setupRequest: (req) => ({ ...req, ...build() }),
    onResponse: (status, body) => {
      last.route = route;
      done?.(status, body);
    },
  };
}

const json = (body: string): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The request cycle of one client of the mix, on its own session (tokens and agent). */
function mixCycle(s: Session, last: Last, phones: string[], now: Date, n: () => number): AutocannonRequest[] {
  const auth = () => ({ Authorization: `Bearer ${s.access}` });
  const agents = (page: number, search: string) =>
    `/api/v1/agent?${new URLSearchParams(
      agentListParams({
        page,
        limit: 10,
        search,
        sort: [
          ['agent_name', 1],
          ['updatedAt', -1],
        ],
      }),
    )}`;
  const calls = (q: CallListParams) => `/api/v1/call/?${new URLSearchParams(callListParams({ limit: 10, ...q }))}`;
  const windowEnd = (i: number) => new Date(now.getTime() - (30 + (i % 300)) * 86_400_000);
  const readVersion = (status: number, body: string) => {
    const agent = (json(body)?.data as { agent?: { version?: number } } | undefined)?.agent;
    if (status === 200 && typeof agent?.version === 'number') s.version = agent.version;
  };
  return [
    timed(last, 'GET /agent (list, two-key sort)', () => ({ path: agents(1 + (n() % 20), ''), headers: auth() })),
    timed(last, 'GET /call/ (first page)', () => ({ path: calls({ page: 0 }), headers: auth() })),
    timed(last, 'GET /agent (search + sort)', () => ({ path: agents(1 + (n() % 5), 'care'), headers: auth() })),
    timed(last, 'GET /agent/{id}', () => ({ path: `/api/v1/agent/${s.agentId}`, headers: auth() }), readVersion),
    timed(last, 'GET /call/ (status + 30-day range)', () => {
      const i = n();
      const end = windowEnd(i);
      return {
        path: calls({
          page: i % 5,
          status: i % 2 ? 'completed' : 'failed',
          dateFrom: day(new Date(end.getTime() - 29 * 86_400_000)),
          dateTo: day(end),
        }),
        headers: auth(),
      };
    }),
    timed(
      last,
      'PUT /agent/{id} (dialog update)',
      () => ({
        method: 'PUT',
        path: `/api/v1/agent/${s.agentId}`,
        headers: { ...auth(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent_name: `Load agent ${s.agentId.slice(-6)} v${s.version + 1}`, version: s.version }),
      }),
      readVersion,
    ),
    timed(last, 'GET /call/ (type + status / number, sorted)', () => {
      const i = n();
      const q: CallListParams =
        i % 3 === 0
          ? { page: i % 10, sort: [['duration', -1]] }
          : i % 3 === 1
            ? { page: i % 10, type: 'inbound', status: 'ended' }
            : { page: i % 10, phoneNumber: phones[i % phones.length] ?? '' };
      return { path: calls(q), headers: auth() };
    }),
    timed(
      last,
      'POST /auth/refresh (rotation)',
      () => ({ method: 'POST', path: '/api/v1/auth/refresh', headers: { Authorization: `Bearer ${s.refresh}` } }),
      (status, body) => {
        const t = json(body);
        if (status === 200 && typeof t?.access_token === 'string' && typeof t.refresh_token === 'string') {
          s.access = t.access_token;
          s.refresh = t.refresh_token;
        }
      },
    ),
  ];
}

interface RunFigures {
  connections: number;
  duration_s: number;
  requests: number;
  throughput_rps: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency_ms: Percentiles;
  routes: { route: string; requests: number; timed: number; statuses: Record<string, number>; latency_ms: Percentiles }[];
}

const figures = (r: AutocannonResult, rec: Recorder, connections: number): RunFigures => ({
  connections,
  duration_s: Math.round(r.duration * 10) / 10,
  requests: r.requests.total,
  throughput_rps: Math.round(r.requests.total / r.duration),
  errors: r.errors,
  timeouts: r.timeouts,
  non2xx: r.non2xx,
  ...rec.summary(),
});

/** The mix on `sessions` (one client each) for `duration` s. */
function runMix(baseUrl: string, sessions: Session[], phones: string[], duration: number) {
  const rec = new Recorder();
  let counter = 0;
  const n = () => counter++;
  const now = new Date();
  let next = 0;
  const instance = autocannon({
    url: baseUrl,
    connections: sessions.length,
    duration,
    timeout: 10,
    setupClient: (client: AutocannonClient) => {
      const s = sessions[next++ % sessions.length]!;
      client.setRequests(mixCycle(s, track(client, rec), phones, now, n));
    },
  });
  return { done: instance.then((r) => figures(r, rec, sessions.length)), stop: () => instance.stop() };
}

/** `connections` clients sending wrong passwords, each time for a new email, for `duration` s. */
function runFlood(baseUrl: string, connections: number, duration: number) {
  const rec = new Recorder();
  let i = 0;
  const instance = autocannon({
    url: baseUrl,
    connections,
    duration,
    timeout: 10,
    setupClient: (client: AutocannonClient) =>
      client.setRequests([
        timed(track(client, rec), 'POST /account/login (wrong password)', () => ({
          method: 'POST',
          path: '/api/v1/account/login',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: `flood-${i++}@example.com`, password: 'not the password 42' }),
        })),
      ]),
  });
  return instance.then((r) => figures(r, rec, connections));
}

/** A DATA_DIR holding one company with CALLS calls and AGENTS agents; answers its email and password. */
async function seedDataDir(dataDir: string) {
  const database = await openDatabase({ sqliteFile: path.join(dataDir, 'parley.sqlite') });
  try {
    const db = database.db;
    const now = new Date();
    const rng = seededRng(20_261_123);
    const ws = await ensureWorkspace(db, {
      email: EMAIL,
      name: 'Load',
      companyName: 'Load test company',
      now,
      events: companyEvents(),
    });
    if (!ws.password) throw new Error('expected a fresh account');
    const owner = { companyId: ws.companyId, accountId: ws.accountId };
    const lines = await addPoolNumbers(db, { count: 5, now, rng, owner });
    const rows = Array.from({ length: AGENTS }, (_, i) =>
      newAgentRow({
        ...owner,
        doc: docOf(
          v.parse(AgentSavePayloadSchema, { ...SAMPLE_AGENT_PAYLOAD, name: `${i % 3 ? 'Front desk' : 'Care line'} ${i}` }),
        ),
        now: new Date(now.getTime() - (AGENTS - i) * 60_000),
      }),
    );
    await db.transaction().execute((trx) => insertAgentRows(trx, rows));
    const seedMs = await seedCallsTimed(db, {
      companyId: ws.companyId,
      count: CALLS,
      days: DAYS,
      now,
      rng,
    });
    return {
      password: ws.password,
      agentIds: rows.map((r) => r.id),
      phones: lines.map((l) => l.phone),
      seedMs: Math.round(seedMs),
    };
  } finally {
    await database.close();
  }
}

async function login(baseUrl: string, password: string) {
  const res = await fetch(`${baseUrl}/api/v1/account/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password }),
  });
  const body = (await res.json()) as { token?: string; refresh_token?: string };
  if (res.status !== 200 || !body.token || !body.refresh_token) throw new Error(`login: ${res.status} ${JSON.stringify(body)}`);
  return { access: body.token, refresh: body.refresh_token };
}

export async function run() {
  if (buildIsStale()) await buildAll({ quiet: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-load-'));
  process.stderr.write(`  seeding ${CALLS.toLocaleString('en-US')} calls and ${AGENTS} agents into ${dataDir}\n`);
  const seeded = await seedDataDir(dataDir);
  const server = await startServer({ dataDir, env: { DEMO: 'off', LOG_LEVEL: 'error' } });
  try {
    const sessions: Session[] = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      const tokens = await login(server.baseUrl, seeded.password);
      sessions.push({ ...tokens, agentId: seeded.agentIds[i]!, version: 1 });
    }

    // warm-up (not recorded): connections open, JIT and SQLite's page cache warm
    await runMix(server.baseUrl, sessions, seeded.phones, WARMUP_S).done;
    process.stderr.write(`  the mix: ${CONNECTIONS} clients for ${DURATION_S} s\n`);
    const mix = await runMix(server.baseUrl, sessions, seeded.phones, DURATION_S).done;
    const floodSessions = sessions.slice(0, FLOOD_MIX_CONNECTIONS);
    process.stderr.write(`  the mix alone: ${FLOOD_MIX_CONNECTIONS} clients for ${FLOOD_DURATION_S} s\n`);
    const baseline = await runMix(server.baseUrl, floodSessions, seeded.phones, FLOOD_DURATION_S).done;
    process.stderr.write(
      `  login flood: ${FLOOD_CONNECTIONS} clients with wrong passwords + the mix on ${FLOOD_MIX_CONNECTIONS} clients for ${FLOOD_DURATION_S} s\n`,
    );
    const other = runMix(server.baseUrl, floodSessions, seeded.phones, FLOOD_DURATION_S);
    const [during, flood] = await Promise.all([other.done, runFlood(server.baseUrl, FLOOD_CONNECTIONS, FLOOD_DURATION_S)]);

    const mixErrors = mix.errors + mix.timeouts + mix.non2xx;
    const floodMixErrors = during.errors + during.timeouts + during.non2xx;
    return {
      quick: QUICK,
      calls: CALLS,
      agents: AGENTS,
      database: 'sqlite' as const,
      seed_ms: seeded.seedMs,
      mix: { ...mix, budget_errors: BUDGET_ERRORS, pass: mixErrors <= BUDGET_ERRORS },
      flood: {
        login: flood,
        other_routes_alone: baseline,
        other_routes_during: during,
        budget_p99_ms: BUDGET_FLOOD_P99_MS,
        pass: during.latency_ms.p99 <= BUDGET_FLOOD_P99_MS && floodMixErrors === 0,
      },
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: os.cpus().length,
      what:
        `npm start (built, SQLite, NODE_ENV=production) on loopback; autocannon ${CONNECTIONS} connections for ${DURATION_S} s over the mix ` +
        `(list agents, call history x3 filters, get agent, update agent, refresh token), each connection on its own session and agent; ` +
        `then ${FLOOD_CONNECTIONS} connections of wrong-password logins (a new email each) for ${FLOOD_DURATION_S} s beside the mix on ${FLOOD_MIX_CONNECTIONS} connections; latencies as autocannon measures them (from writing the request), each connection's first answer counted but not timed (it includes opening the connection)`,
    };
  } finally {
    await server.stop();
  }
}

export type LoadBench = Awaited<ReturnType<typeof run>>;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const mark = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const lat = (p: Percentiles) => `p50 ${p.p50} ms  p95 ${p.p95} ms  p99 ${p.p99} ms  max ${p.max} ms`;
  const m = result.mix;
  out(
    `Load: ${result.calls.toLocaleString('en-US')} calls, ${result.agents} agents (SQLite; seeded in ${(result.seed_ms / 1000).toFixed(1)} s)${result.quick ? ' [quick run]' : ''}`,
  );
  out(
    `  the mix, ${m.connections} clients, ${m.duration_s} s: ${m.requests} requests, ${m.throughput_rps} req/s, ${lat(m.latency_ms)}`,
  );
  for (const r of m.routes)
    out(`    ${r.route.padEnd(46)} ${String(r.requests).padStart(7)}  ${lat(r.latency_ms)}  ${JSON.stringify(r.statuses)}`);
  out(`  errors ${m.errors}, timeouts ${m.timeouts}, non-2xx ${m.non2xx} (budget ${m.budget_errors}) ${mark(m.pass)}`);
  const f = result.flood;
  out(
    `  login flood, ${f.login.connections} clients: ${f.login.requests} logins, ${f.login.throughput_rps}/s, ${lat(f.login.latency_ms)}`,
  );
  out(`    answers ${JSON.stringify(f.login.routes[0]?.statuses ?? {})}`);
  out(
    `  other routes alone (${f.other_routes_alone.connections} clients): ${f.other_routes_alone.throughput_rps} req/s, ${lat(f.other_routes_alone.latency_ms)}`,
  );
  out(
    `  other routes during the flood: ${f.other_routes_during.throughput_rps} req/s, ${lat(f.other_routes_during.latency_ms)}; non-2xx ${f.other_routes_during.non2xx} (budget p99 <= ${f.budget_p99_ms} ms) ${mark(f.pass)}`,
  );
  out(`  load average ${result.load_average.join(' ')} on ${result.cpus} CPUs`);
  const { writeSection } = await import('./results.mjs');
  writeSection('load', result);
}
