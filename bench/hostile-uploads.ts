/**
 * Hostile uploads benchmark: the built server started like `npm start` (SQLite in a temporary
 * DATA_DIR) receives the knowledge-base documents of tests/fixtures/hostile.ts, each as its own knowledge
 * base, while a client asks GET /api/v1/health one request after another (and the knowledge-base list
 * every 100 ms), from the first upload until every document has ended (complete or failed).
 *
 * Reports
 * - the health latency seen by the client during the uploads and their processing (p50/p95/p99/max), and
 *   the same for 5 s before any upload (the baseline); budget: p99 <= 50 ms during the uploads;
 * - the event-loop delay the server reports in /health (p99 and max over its last minute), the highest
 *   values seen during the run;
 * - per document: size, how it ended (status, error message) and how long it took;
 * - the machine's load average (the bench shares the machine; a busy one delays everything).
 *
 *   npx tsx bench/hostile-uploads.ts     prints the figures and writes the `hostileUploads` section of bench/results.json
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { buildAll } from '../scripts/build.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { buildIsStale } from '../scripts/lib/stale.mjs';
import {
  deepNestingHtml,
  flateBombPdf,
  hugeAttributeHtml,
  manyPagesPdf,
  unclosedCommentsHtml,
  unclosedTagsHtml,
} from '../tests/fixtures/hostile.js';
import { latencySummary, type Percentiles, poller, QUICK } from './lib.js';

export const BUDGET_HEALTH_P99_MS = 50;
const BASELINE_S = QUICK ? 2 : 5;
const PROCESSING_TIMEOUT_MS = 10 * 60_000;
const MiB = 1024 * 1024;

interface DocumentResult {
  name: string;
  what: string;
  bytes: number;
  status: string;
  error_message: string | null;
  /** from the upload's answer to the final status, s */
  seconds: number;
}

export interface HostileUploadsBench {
  documents: DocumentResult[];
  health_baseline_ms: Percentiles & { requests: number };
  health_during_ms: Percentiles & { requests: number };
  list_during_ms: Percentiles & { requests: number };
  /** the highest figures /health reported during the run (each over the server's last minute) */
  server_event_loop: { p99_ms: number; max_ms: number; samples: number };
  during_s: number;
  budget_p99_ms: number;
  pass: boolean;
  load_average: number[];
  cpus: number;
  what: string;
}

const DOCUMENTS: { name: string; what: string; make: () => string | Buffer }[] = [
  { name: 'br.html', what: '`<p>hi</p>` + `<br` × 68,000 (the attack of the issue)', make: () => unclosedTagsHtml() },
  { name: 'br-3mb.html', what: '`<br` × 1,000,000', make: () => unclosedTagsHtml(1_000_000) },
  { name: 'comments.html', what: '`<!--` × 1,000,000, never closed', make: () => unclosedCommentsHtml(1_000_000) },
  { name: 'nesting.html', what: '200,000 nested elements', make: () => deepNestingHtml(200_000) },
  { name: 'attribute.html', what: 'an 8 MB attribute value, never closed', make: () => hugeAttributeHtml(8 * MiB) },
  { name: 'bomb.pdf', what: 'a content stream that inflates to 170 MB', make: () => flateBombPdf() },
  { name: 'layered.pdf', what: 'the same under two FlateDecode layers', make: () => flateBombPdf(170 * MiB, 2) },
  { name: 'pages.pdf', what: '70,000 tiny pages', make: () => manyPagesPdf() },
];

async function register(baseUrl: string): Promise<string> {
  const form = new FormData();
  form.set('name', 'Bench User');
  form.set('email', `bench-${Date.now()}@example.com`);
  form.set('password', 'hostile bench password 1234');
  const res = await fetch(`${baseUrl}/api/v1/account/register`, { method: 'POST', body: form });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 201 || !body.token) throw new Error(`sign-up: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

export async function run(): Promise<HostileUploadsBench> {
  if (buildIsStale()) await buildAll({ quiet: true });
  const files = DOCUMENTS.map((d) => ({ ...d, bytes: d.make() }));
  const server = await startServer({ env: { DEMO: 'off', LOG_LEVEL: 'error' } });
  try {
    const token = await register(server.baseUrl);
    const auth = { Authorization: `Bearer ${token}` };
    const serverLoop = { p99_ms: 0, max_ms: 0, samples: 0 };
    const health = async () => {
      const res = await fetch(`${server.baseUrl}/api/v1/health`);
      const body = (await res.json()) as { event_loop?: { p99_ms: number; max_ms: number } };
      if (!res.ok || !body.event_loop) throw new Error(`health: ${res.status} ${JSON.stringify(body)}`);
      return body.event_loop;
    };

    const baseline = poller(health, 20);
    await new Promise((r) => setTimeout(r, BASELINE_S * 1000));
    await baseline.stop();

    const start = performance.now();
    const during = poller(async () => {
      const loop = await health();
      serverLoop.p99_ms = Math.max(serverLoop.p99_ms, loop.p99_ms);
      serverLoop.max_ms = Math.max(serverLoop.max_ms, loop.max_ms);
      serverLoop.samples++;
    }, 20);
    const list = poller(() => fetch(`${server.baseUrl}/api/v1/knowledge-base`, { headers: auth }).then((r) => r.json()), 100);
    const uploaded: { doc: (typeof files)[number]; id: string; at: number }[] = [];
    for (const doc of files) {
      const form = new FormData();
      form.set('knowledge_base_name', doc.name);
      form.append(
        'knowledge_base_files',
        new Blob([typeof doc.bytes === 'string' ? doc.bytes : new Uint8Array(doc.bytes)]),
        doc.name,
      );
      const res = await fetch(`${server.baseUrl}/api/v1/knowledge-base`, { method: 'POST', headers: auth, body: form });
      const body = (await res.json()) as { data?: { knowledge_base: { knowledge_base_id: string } } };
      if (res.status !== 201 || !body.data) throw new Error(`upload ${doc.name}: ${res.status} ${JSON.stringify(body)}`);
      uploaded.push({ doc, id: body.data.knowledge_base.knowledge_base_id, at: performance.now() });
    }
    const documents: DocumentResult[] = [];
    for (const u of uploaded) {
      for (;;) {
        const res = await fetch(`${server.baseUrl}/api/v1/knowledge-base/${u.id}`, { headers: auth });
        const kb = ((await res.json()) as { data: { knowledge_base: { status: string; error_message?: string } } }).data
          .knowledge_base;
        if (kb.status === 'complete' || kb.status === 'failed') {
          documents.push({
            name: u.doc.name,
            what: u.doc.what,
            bytes: Buffer.byteLength(u.doc.bytes),
            status: kb.status,
            error_message: kb.error_message ?? null,
            seconds: Math.round((performance.now() - u.at) / 100) / 10,
          });
          break;
        }
        if (performance.now() - start > PROCESSING_TIMEOUT_MS) throw new Error(`${u.doc.name} still ${kb.status}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await Promise.all([during.stop(), list.stop()]);
    const duringMs = latencySummary(during.times);
    return {
      documents,
      health_baseline_ms: latencySummary(baseline.times),
      health_during_ms: duringMs,
      list_during_ms: latencySummary(list.times),
      server_event_loop: serverLoop,
      during_s: Math.round((performance.now() - start) / 100) / 10,
      budget_p99_ms: BUDGET_HEALTH_P99_MS,
      pass: duringMs.p99 <= BUDGET_HEALTH_P99_MS,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: os.cpus().length,
      what:
        'npm start (built, SQLite, NODE_ENV=production) on loopback; each hostile document uploaded as its own knowledge base, one after another, ' +
        'while one client asks GET /api/v1/health back to back (20 ms apart) and another lists the knowledge bases every 100 ms, until every document has ended; ' +
        `latencies as the client measures them (fetch to the parsed answer); the baseline is the same health client for ${BASELINE_S} s before the first upload`,
    };
  } finally {
    await server.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const lat = (p: Percentiles & { requests: number }) =>
    `p50 ${p.p50} ms  p95 ${p.p95} ms  p99 ${p.p99} ms  max ${p.max} ms  (${p.requests} requests)`;
  out(`Hostile uploads${QUICK ? ' [quick run]' : ''}: ${result.documents.length} documents in ${result.during_s} s`);
  for (const d of result.documents)
    out(
      `  ${d.name.padEnd(16)} ${String(d.bytes).padStart(9)} B  ${d.status.padEnd(9)} ${String(d.seconds).padStart(5)} s  ${d.error_message ?? ''}`,
    );
  out(`  health before:   ${lat(result.health_baseline_ms)}`);
  out(
    `  health during:   ${lat(result.health_during_ms)} (budget p99 <= ${result.budget_p99_ms} ms) ${result.pass ? 'PASS' : 'FAIL'}`,
  );
  out(`  list during:     ${lat(result.list_during_ms)}`);
  out(
    `  server event loop (highest /health report): p99 ${result.server_event_loop.p99_ms} ms, max ${result.server_event_loop.max_ms} ms`,
  );
  out(`  load average ${result.load_average.join(' ')} on ${result.cpus} CPUs`);
  const { writeSection } = await import('./results.mjs');
  writeSection('hostileUploads', result);
}
