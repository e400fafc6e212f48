// `npm test`: everything CI runs, in order, stopping at the first failure:
//   typecheck (tsc) · lint (biome) · statecharts --check   (run side by side, reported in this order)
//   unit + server tests (vitest; server tests against SQLite, and PostgreSQL too when TEST_DATABASE_URL is set)
//   e2e (vitest + Debian's Chromium against the built app)
// The last line is `N passed, N failed` (vitest tests; a failed check counts as one failure).
// `npm test -- --no-e2e` skips the browser tests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (p) => path.join(root, 'node_modules', p);
const CHROMIUM = '/usr/bin/chromium';
const skipE2e = process.argv.includes('--no-e2e');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));

const totals = { passed: 0, failed: 0, skipped: 0 };
const say = (line) => process.stdout.write(`${line}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Colours when a person watches; plain text in CI logs. */
function colors() {
  const env = { ...process.env };
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  if (process.stdout.isTTY) env.FORCE_COLOR = '1';
  else env.NO_COLOR = '1';
  return env;
}

/** Runs a command; `capture` buffers its output (for steps that run side by side). */
function run(cmd, args, { capture = false, env = {} } = {}) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let output = '';
    const child = spawn(cmd, args, {
      cwd: root,
      env: { ...colors(), ...env },
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    });
    if (capture) {
      child.stdout.on('data', (d) => {
        output += d;
      });
      child.stderr.on('data', (d) => {
        output += d;
      });
    }
    child.on('error', (e) => resolve({ code: 127, output: `${output}${e.message}\n`, ms: Date.now() - t0 }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output, ms: Date.now() - t0 }));
  });
}

function finish(failedStep) {
  if (failedStep) say(`\n✗ ${failedStep}: stopping here (fix it and run npm test again).`);
  fs.rmSync(tmp, { recursive: true, force: true });
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
  say(`${totals.passed} passed, ${totals.failed} failed${skipped}`);
  process.exit(failedStep || totals.failed ? 1 : 0);
}

/** Adds a vitest JSON report to the totals; false when the report is missing (vitest crashed). */
function count(reportFile) {
  try {
    const r = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
    totals.passed += r.numPassedTests ?? 0;
    totals.failed += r.numFailedTests ?? 0;
    totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    return { tests: r.numTotalTests ?? 0, failedSuites: r.numFailedTestSuites ?? 0 };
  } catch {
    return undefined;
  }
}

async function vitest(name, projects) {
  const report = path.join(tmp, `${name}.json`);
  say(`\n▶ ${name} tests (vitest --project ${projects.join(' --project ')})`);
  const args = [bin('vitest/vitest.mjs'), 'run', ...projects.flatMap((p) => ['--project', p])];
  args.push('--reporter=default', '--reporter=json', `--outputFile.json=${report}`);
  const { code, ms } = await run(process.execPath, args);
  const counted = count(report);
  if (!counted) {
    totals.failed += 1;
    finish(`${name} tests crashed before reporting (exit ${code})`);
  }
  if (code !== 0 || counted.failedSuites > 0) {
    if (totals.failed === 0) totals.failed += 1; // a suite failed to load: no test counted it
    finish(`${name} tests failed (exit ${code})`);
  }
  if (counted.tests === 0) {
    totals.failed += 1;
    finish(`${name} tests: vitest ran no test`);
  }
  say(`✓ ${name} tests (${secs(ms)})`);
}

// 1. static checks, side by side; reported in order
say('▶ typecheck, lint and statecharts --check');
const checks = [
  ['typecheck', process.execPath, [bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit', '--pretty']],
  ['lint', bin('.bin/biome'), ['check', '.', '--colors=off']],
  ['statecharts', process.execPath, [bin('tsx/dist/cli.mjs'), 'scripts/statecharts.ts', '--check']],
];
const results = await Promise.all(checks.map(([, cmd, args]) => run(cmd, args, { capture: true })));
for (const [i, [name]] of checks.entries()) {
  const r = results[i];
  if (r.code !== 0) {
    process.stdout.write(r.output);
    totals.failed += 1;
    finish(`${name} failed (exit ${r.code})`);
  }
  say(`✓ ${name} (${secs(r.ms)})`);
}

// 2. unit, machine and server tests
if (process.env.TEST_DATABASE_URL) say('  server tests run against SQLite and PostgreSQL (TEST_DATABASE_URL is set)');
else say('  server tests run against SQLite only (set TEST_DATABASE_URL to add PostgreSQL)');
await vitest('unit + server', ['unit', 'server']);

// 3. browser tests
if (skipE2e) {
  say('\n- e2e skipped (--no-e2e)');
} else {
  if (!fs.existsSync(CHROMIUM)) {
    say(`Chromium not found at ${CHROMIUM}: run apt-get install -y chromium`);
    totals.failed += 1;
    fs.rmSync(tmp, { recursive: true, force: true });
    say(`${totals.passed} passed, ${totals.failed} failed`);
    process.exit(1);
  }
  await vitest('e2e', ['e2e']);
}
finish();
