/**
 * A batch call of RECIPIENTS recipients dialled by the batch dispatcher through the fake Twilio,
 * which answers every call; the callee hangs up after CALL_MS (short calls), each call running through the
 * call engine with the speech, LLM and voice fakes (bench/phone-lib.ts). The company's concurrency limit is
 * CONCURRENCY (Billing > Limits).
 *
 * The server runs in this process (the app, the call sockets and the dispatcher on a fresh SQLite file),
 * because the pace of new calls is configurable per server (dialsPerSecond) and `npm start` dials 1 a
 * second: at that default 1,000 recipients take at least 1,000 s. BATCH_DIALS_PER_SECOND sets the pace
 * here (default 10).
 *
 * Figures: wall time from Send to the batch completed; dial pacing from the fake's log of Calls.json
 * requests: the most dials in any 1 s window (the pace is per company), the mean and smallest gap between
 * dials; the most calls live at once at the carrier (never above the limit); the outcomes.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApp } from '../server/app.js';
import { createHttpServer } from '../server/http-server.js';
import { startBatchDispatcher } from '../server/modules/batches/dispatcher.js';
import { createCallRuntime, settleCalls } from '../server/modules/conversations/runtime.js';
import { loadSecrets } from '../server/platform/crypto/keys.js';
import { openDatabase } from '../server/platform/db/index.js';
import { type AppDeps, realHttpClient, systemClock } from '../server/platform/deps.js';
import { createLogger } from '../server/platform/log/logger.js';
import { createProviderRegistry, defaultProviderUrls } from '../server/voice/providers/registry.js';
import { log, phoneCompany, round1, sleep, startPhoneFakes } from './phone-lib.js';
import { QUICK, writeSection } from './results.mjs';

const RECIPIENTS = QUICK ? 100 : 1000;
const CONCURRENCY = 10;
const CALL_MS = 1000;
const DIALS_PER_SECOND = Number(process.env.BATCH_DIALS_PER_SECOND ?? 10);
const FROM = '+14155550100';

async function main() {
  const fakes = await startPhoneFakes();
  fakes.twilio.calleeHangsUpAfterMs = CALL_MS;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-batch-'));
  const database = await openDatabase({ sqliteFile: path.join(dataDir, 'parley.sqlite') });
  const calls = createCallRuntime(createProviderRegistry());
  const deps: AppDeps = {
    db: database,
    clock: systemClock,
    mailer: { send: async () => {} },
    secrets: loadSecrets(dataDir, {}),
    config: {
      dataDir,
      publicUrl: 'http://127.0.0.1',
      providerUrls: {
        ...defaultProviderUrls(),
        deepgram: fakes.deepgram.url,
        openai: fakes.openai.url,
        elevenlabs: fakes.eleven.url,
      },
      telephonyUrls: { twilio: fakes.twilio.url },
      signUpsPerHour: 100_000,
    },
    logger: createLogger('error'),
    http: realHttpClient,
    calls,
  };
  const { server, closeSockets } = createHttpServer(createApp(deps), deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  deps.config.publicUrl = baseUrl;
  let dispatcher: ReturnType<typeof startBatchDispatcher> | undefined;
  try {
    const { token, api } = await phoneCompany(baseUrl, fakes, {
      phone: FROM,
      direction: 'outbound',
      concurrencyLimit: CONCURRENCY,
    });
    const created = await api(
      'POST',
      '/batch-call',
      token,
      { name: 'Bench batch', fromNumber: FROM, sendMode: 'now' },
      { 'Idempotency-Key': `bench-${Date.now()}` },
    );
    const batchId = created.batch._id as string;
    const phones = Array.from({ length: RECIPIENTS }, (_, i) => `+1415${String(2_000_000 + i).padStart(7, '0')}`);
    await api(
      'POST',
      `/batch-call/${batchId}/recipients`,
      token,
      ['phone_number,name', ...phones.map((p, i) => `${p},P${i}`)].join('\n'),
      {
        'Content-Type': 'text/csv',
      },
    );
    dispatcher = startBatchDispatcher(deps, { dialsPerSecond: DIALS_PER_SECOND, tickMs: 20 });
    const sentAt = performance.now();
    await api('POST', `/batch-call/${batchId}/send`, token);
    let status = '';
    let lastShown = 0;
    while (status !== 'completed') {
      await sleep(250);
      status = (await api('GET', `/batch-call/${batchId}`, token)).batch.status;
      const placed = fakes.twilio.calls.length;
      if (placed >= lastShown + RECIPIENTS / 10) {
        process.stderr.write(`  ${placed} / ${RECIPIENTS} dialled\n`);
        lastShown = placed;
      }
      if (performance.now() - sentAt > 30 * 60_000) throw new Error(`batch not completed: ${status}`);
    }
    const wallS = (performance.now() - sentAt) / 1000;
    const dials = fakes.twilio.calls.filter((c) => c.direction === 'outbound-api').map((c) => c.placedAt);
    dials.sort((a, b) => a - b);
    let maxInSecond = 0;
    for (let i = 0, j = 0; i < dials.length; i++) {
      while ((dials[i] as number) - (dials[j] as number) >= 1000) j++;
      maxInSecond = Math.max(maxInSecond, i - j + 1);
    }
    const gaps = dials.slice(1).map((t, i) => t - (dials[i] as number));
    const perNumber = new Map<string, number>();
    for (const c of fakes.twilio.calls) perNumber.set(c.to, (perNumber.get(c.to) ?? 0) + 1);
    const outcomes = Object.fromEntries(
      (
        (await database.db
          .selectFrom('batch_recipients')
          .select(['state', database.db.fn.countAll<number>().as('n')])
          .where('batch_id', '=', batchId)
          .groupBy('state')
          .execute()) as { state: string; n: number }[]
      ).map((r) => [r.state, Number(r.n)]),
    );
    const row = {
      recipients: RECIPIENTS,
      concurrency_limit: CONCURRENCY,
      dials_per_second_configured: DIALS_PER_SECOND,
      call_ms: CALL_MS,
      wall_s: round1(wallS),
      dials: dials.length,
      numbers_dialled_twice: [...perNumber.values()].filter((n) => n > 1).length,
      max_dials_in_1s: maxInSecond,
      mean_gap_ms: round1(gaps.reduce((a, g) => a + g, 0) / Math.max(1, gaps.length)),
      min_gap_ms: round1(Math.min(...gaps)),
      dials_per_s: round1(dials.length / wallS),
      max_live_calls: fakes.twilio.maxActive,
      outcomes,
    };
    log(
      `batch of ${RECIPIENTS} at ${CONCURRENCY} concurrent, ${DIALS_PER_SECOND} dials/s configured: ${row.wall_s} s wall; ${row.dials} dials (${row.numbers_dialled_twice} numbers twice); at most ${row.max_dials_in_1s} dials in any 1 s; gap mean ${row.mean_gap_ms} ms, min ${row.min_gap_ms} ms; at most ${row.max_live_calls} live calls; outcomes ${JSON.stringify(outcomes)}`,
    );
    writeSection('batchDial', {
      what: 'the batch dispatcher and call engine in one process on a fresh SQLite file; the fake Twilio answers every call, the callee hangs up after call_ms; Deepgram, OpenAI and ElevenLabs protocol fakes',
      ...row,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: os.cpus().length,
    });
  } finally {
    await dispatcher?.stop();
    closeSockets();
    await settleCalls(calls);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await database.close();
    await fakes.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
