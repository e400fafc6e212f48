/**
 * `npm run seed -- --company <email> --calls N --numbers M [--free K] [--days D] [--seed S]`
 *
 * Fills a company with realistic data (see server/modules/company/call-generator.ts), on the database the
 * server uses (DATABASE_URL, else DATA_DIR/parley.sqlite):
 * - the account <email> and its company are created when missing (its generated password is printed);
 * - M new numbers from the pool are assigned to the company (default 0; 2 when it has none and calls
 *   are asked for), K new free numbers are added to the pool (default 0);
 * - N calls over the last D days (default: about 2,500 a day, 30 to 730 days), inserted in batches of
 *   10,000, one transaction each, with a progress bar on stderr; up to BULK_CALLS (100,000) calls also get
 *   what they said (transcripts, latency, usage, analyses: demo-conversations.ts), a larger load only the
 *   calls (it is for measuring the call history at size).
 */
import { parseArgs } from 'node:util';
import { companyEvents } from '../compose.js';
import { addPoolNumbers, BULK_CALLS, ensureWorkspace, holdsAnyNumber, seedCalls, seededRng } from '../modules/company/index.js';
import { widenSqliteCache } from '../platform/db/index.js';
import { countOption, openFromEnv, runCli, UsageError } from './common.js';

const USAGE = `Usage: npm run seed -- --company <email> [--calls N] [--numbers M] [--free K] [--days D] [--seed S]

  --company <email>  the account whose company gets the data (created, with a printed password, if missing)
  --calls N          calls to generate (default 0); up to 100,000 also get transcripts and analyses
  --numbers M        numbers to assign to the company (default 0; 2 if it has none and N > 0)
  --free K           free numbers to add to the pool (default 0)
  --days D           spread the calls over the last D days (default N / 2,500, between 30 and 730)
  --seed S           random seed, for repeatable data (default: random)`;

const err = (text: string) => process.stderr.write(text);
const fmt = (n: number) => n.toLocaleString('en-US');

/** A progress bar on stderr: redrawn in place on a terminal, a line every 10% otherwise. */
function progressBar(label: string) {
  const started = performance.now();
  let lastTenth = -1;
  return (done: number, total: number) => {
    const ratio = total === 0 ? 1 : done / total;
    const secs = (performance.now() - started) / 1000;
    const eta = ratio > 0 ? secs / ratio - secs : 0;
    const width = 30;
    const filled = Math.round(ratio * width);
    const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%  ${fmt(done)}/${fmt(total)}  ${secs.toFixed(1)} s${done < total ? `  ETA ${eta.toFixed(0)} s` : ''}`;
    if (process.stderr.isTTY) err(`\r${line}${done >= total ? '\n' : ''}`);
    else if (Math.floor(ratio * 10) > lastTenth || done >= total) {
      lastTenth = Math.floor(ratio * 10);
      err(`${line}\n`);
    }
  };
}

async function main() {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        company: { type: 'string' },
        calls: { type: 'string' },
        numbers: { type: 'string' },
        free: { type: 'string' },
        days: { type: 'string' },
        seed: { type: 'string' },
      },
      strict: true,
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (!values.company || !/^[^\s@]+@[^\s@]+$/.test(values.company)) throw new UsageError('--company <email> is required');
  const calls = countOption(values.calls, 'calls', 0, 10_000_000);
  let numbers = countOption(values.numbers, 'numbers', 0, 10_000);
  const free = countOption(values.free, 'free', 0, 10_000);
  const days = countOption(values.days, 'days', Math.min(730, Math.max(30, Math.ceil(calls / 2500))), 3650);
  if (days < 1) throw new UsageError('--days must be at least 1');
  const seed = countOption(values.seed, 'seed', Math.floor(Math.random() * 2 ** 31), 2 ** 32 - 1);
  const rng = seededRng(seed);

  const database = await openFromEnv();
  try {
    const db = database.db;
    const now = new Date();
    const ws = await ensureWorkspace(db, {
      email: values.company,
      name: values.company.split('@')[0]!,
      companyName: `${values.company} company`,
      now,
      events: companyEvents(),
    });
    if (ws.created) err(`Created the account ${ws.email} with the password ${ws.password} (shown only this once)\n`);
    if (!(await holdsAnyNumber(db, ws.companyId)) && numbers === 0 && calls > 0) numbers = 2;
    if (numbers > 0) {
      const added = await addPoolNumbers(db, {
        count: numbers,
        now,
        rng,
        owner: { companyId: ws.companyId, accountId: ws.accountId },
      });
      err(`Assigned ${added.length} number(s) to the company: ${added.map((n) => n.phone).join(', ')}\n`);
    }
    if (free > 0) err(`Added ${(await addPoolNumbers(db, { count: free, now, rng })).length} free number(s) to the pool\n`);
    if (calls > 0) {
      if (database.kind === 'sqlite') await widenSqliteCache(db, 256); // for the index builds
      // Ctrl-C stops after the current batch, so the indexes are rebuilt and the counts stay exact
      let stopping = false;
      const stop = () => {
        stopping = true;
        err('\nStopping after this batch...\n');
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const started = performance.now();
      const stored = await seedCalls(db, {
        companyId: ws.companyId,
        count: calls,
        days,
        now,
        rng,
        onProgress: progressBar('calls'),
        shouldStop: () => stopping,
        onRebuild: (n) => err(`Rebuilding ${n} call indexes...\n`),
        ...(calls <= BULK_CALLS ? { conversations: {} } : {}),
      });
      const secs = (performance.now() - started) / 1000;
      err(
        `Inserted ${fmt(stored)} calls over ${days} days in ${secs.toFixed(1)} s (${fmt(Math.round(stored / secs))} calls/s, ${database.kind}, seed ${seed})\n`,
      );
    }
  } finally {
    await database.close();
  }
}

await runCli(main, USAGE);
