/**
 * Call History export benchmark: 1,000,000 calls of one company on SQLite (seeded like `npm run
 * seed`), then POST /call/export and GET of its link through app.request, reading the CSV stream to its end
 * without keeping it. Reports rows per second, the time to the first byte, and the process's peak RSS and
 * heap while streaming (sampled every 50 ms) over the baseline before the export: the export holds one batch
 * (EXPORT_BATCH rows) at a time, so memory does not grow with the rows.
 *
 *   npx tsx bench/call-export.ts                 1,000,000 calls; writes the `callExport` section of bench/results.json
 *   CALLS=100000 npx tsx bench/call-export.ts    a smaller run (not written)
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { seededRng } from '../server/modules/company/call-generator.js';
import { addPoolNumbers } from '../server/modules/company/workspace.js';
import { benchApp, QUICK, seedCallsTimed } from './lib.js';

export const CALLS = Number(process.env.CALLS ?? (QUICK ? 100_000 : 1_000_000));

export interface CallExportBench {
  calls: number;
  rows: number;
  bytes: number;
  seconds: number;
  rows_per_s: number;
  first_byte_ms: number;
  baseline_rss_mb: number;
  peak_rss_mb: number;
  baseline_heap_mb: number;
  peak_heap_mb: number;
  load_average: number[];
}

const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;

export async function run(): Promise<CallExportBench> {
  const { app, database, headers, companyId, accountId, close } = await benchApp('export');
  try {
    const now = new Date();
    const rng = seededRng(20_261_125);
    await addPoolNumbers(database.db, { count: 5, now, rng, owner: { companyId, accountId } });
    await seedCallsTimed(database.db, { companyId, count: CALLS, days: 365, now, rng });
    global.gc?.();
    const base = process.memoryUsage();
    let peakRss = base.rss;
    let peakHeap = base.heapUsed;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 50);
    const t0 = performance.now();
    const link = await app.request('/api/v1/call/export', { method: 'POST', headers });
    const { url } = ((await link.json()) as { data: { url: string } }).data;
    const res = await app.request(url);
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    const reader = res.body.getReader();
    let firstByte = 0;
    let bytes = 0;
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!firstByte) firstByte = performance.now() - t0;
      bytes += value.byteLength;
      for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
    }
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const rows = lines - 1;
    if (rows !== CALLS) throw new Error(`exported ${rows} rows of ${CALLS}`);
    return {
      calls: CALLS,
      rows,
      bytes,
      seconds: Math.round(seconds * 100) / 100,
      rows_per_s: Math.round(rows / seconds),
      first_byte_ms: Math.round(firstByte * 10) / 10,
      baseline_rss_mb: mb(base.rss),
      peak_rss_mb: mb(peakRss),
      baseline_heap_mb: mb(base.heapUsed),
      peak_heap_mb: mb(peakHeap),
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
    };
  } finally {
    await close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await run();
  process.stdout.write(
    `Call export: ${r.rows.toLocaleString('en-US')} rows (${mb(r.bytes)} MB) in ${r.seconds} s = ${r.rows_per_s.toLocaleString('en-US')} rows/s; first byte ${r.first_byte_ms} ms; RSS ${r.baseline_rss_mb} -> peak ${r.peak_rss_mb} MB, heap ${r.baseline_heap_mb} -> peak ${r.peak_heap_mb} MB\n`,
  );
  if (r.calls === 1_000_000) {
    const { writeSection } = await import('./results.mjs');
    writeSection('callExport', r);
  }
}
