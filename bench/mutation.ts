/**
 * Mutation testing of the state machines: Stryker (stryker.config.mjs) mutates
 * src/machines/*.ts and runs the machine tests of the unit project (vitest.mutation.config.ts) against
 * each mutant. A mutant the tests notice is killed; one they do not notice survives. The score of a file
 * is killed (and timed out) / (killed + timed out + survived + not covered); descriptions are not mutated
 * (scripts/lib/stryker-ignore-descriptions.mjs).
 *
 *   npm run mutation                                  all machines; writes the `mutation` section of bench/results.json
 *   npm run mutation -- --mutate src/machines/session.machine.ts   one machine (or a glob), prints only
 *                                                     (add --write to record it as a partial run)
 *   npx tsx bench/mutation.ts --report-only           re-reads the last Stryker report (no run)
 *
 * Targets: at least 85% killed in each of the seven machines of TARGETED, at least 75% overall. Part of
 * `npm run bench` (scripts/bench.mjs), never of `npm test`: a full run takes tens of minutes on 2 cores.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const REPORT_JSON = path.join(root, 'bench/tmp/mutation/mutation.json');
export const TARGET_EACH = 85;
export const TARGET_OVERALL = 75;
export const TARGETED = [
  'session',
  'authDialog',
  'forgotPassword',
  'agentEditor',
  'assignAgent',
  'providerConnection',
  'batchCall',
] as const;

/**
 * Survivors judged equivalent (no test can tell them from the original), by machine, the source text the
 * mutant replaces (`original`, exact) and its replacement; lines move, these do not. Each has a reason;
 * bench/report.mjs lists them under the scores.
 */
const narrowing = (type: string) =>
  `The guard is used only on '${type}' transitions: the event-type check only narrows the TypeScript type.`;
export const EQUIVALENT: {
  machine: string;
  /** how the replaced source text starts (whitespace collapsed) */
  original: string;
  replacement: string;
  /** how the mutant's source line starts (trimmed), where `original` alone is ambiguous */
  line?: string;
  reason: string;
}[] = [
  ...(
    [
      ['session', "event.type === 'token.expired'"],
      ['session', "event.type === 'storage.changed'"],
      ['authDialog', "event.type === 'dialog.open'"],
      ['authDialog', "event.type === 'tab.select'"],
      ['agentEditor', "event.type === 'name.commit'"],
      ['batchCall', "event.type === 'recipients.pick'"],
    ] as const
  ).map(([machine, original]) => ({
    machine,
    original,
    replacement: 'true',
    reason: narrowing(original.split("'")[1] ?? ''),
  })),
  ...['loadSession', 'refreshTokens', 'logout'].map((name) => ({
    machine: 'session',
    original: `'${name}'`,
    replacement: '""',
    line: `${name}: fromPromise`,
    reason: 'The name only goes into the message of the placeholder actor, which the app and every test replace.',
  })),
  ...['(name: string) => () => Promise.reject', '() => Promise.reject(new Error(`session'].map((original) => ({
    machine: 'session',
    original,
    replacement: '() => undefined',
    reason: 'The placeholder of an actor the app always provides (src/session); no test may run it.',
  })),
  {
    machine: '*',
    original: '{ context: {} as ',
    replacement: '{}',
    reason: 'The `types` of setup() exist for TypeScript only.',
  },
  {
    machine: 'providerConnection',
    original: "['open', 'editing']",
    replacement: '[]',
    line: "tags: ['open', 'editing']",
    reason: 'The tags of `validating`, a state left at once (eventless): no snapshot ever shows them. (Also its single strings.)',
  },
  ...["'open'", "'editing'"].map((original) => ({
    machine: 'providerConnection',
    original,
    replacement: '""',
    line: "tags: ['open', 'editing']",
    reason: 'A tag of `validating`, a state left at once (eventless): no snapshot ever shows it.',
  })),
  {
    machine: 'providerConnection',
    original: "'disconnect'",
    replacement: '""',
    line: "id: 'disconnect'",
    reason: 'The invoke id only names the child: its done/error handlers are declared with it and nothing else refers to it.',
  },
  ...(
    [
      ['!issues', 'false'],
      ['messages?.[0]', 'true'],
      ['messages?.[0]', 'messages[0]'],
      ['checked?.issues?.[0]?.message', 'checked?.issues?.[0].message'],
    ] as const
  ).map(([original, replacement]) => ({
    machine: 'authDialog',
    original,
    replacement,
    reason:
      'Validation messages are read only from a failed parse: its issues exist and every flattened field has at least one message.',
  })),
  {
    machine: 'forgotPassword',
    original: "'forgotPassword'",
    replacement: '""',
    line: "id: 'forgotPassword'",
    reason: 'Nothing refers to the machine by its id (no `#forgotPassword` target): it is only a name.',
  },
  {
    machine: 'forgotPassword',
    original: '{ error: null }',
    replacement: '{}',
    line: "{ guard: 'isValid', target: 'sending'",
    reason: 'A valid submit always follows a field change, which already cleared the error.',
  },
  {
    machine: 'forgotPassword',
    original: 'v.safeParse(ForgotPasswordBodySchema, { email: context.email }).issues',
    replacement: '',
    reason:
      'On this (invalid) branch the parse always has issues: the optional chaining never short-circuits. (Matched by the mutator below.)',
  },
  {
    machine: 'session',
    original: '{ persistTokens: (_, _params: TokenPair) => {}',
    replacement: '{}',
    reason:
      'The default effects are no-ops: the app provides them (src/session), and an unprovided named action does nothing either.',
  },
  ...["{ 'token.expired': { description: 'Absorbed", "{ description: 'Absorbed"].map((original) => ({
    machine: 'session',
    original,
    replacement: '{}',
    reason:
      'The absorbing transition has no target and no action: without it the event is simply not handled, which is the same.',
  })),
  {
    machine: 'session',
    // the template literal's source text (concatenated: it is not a template here)
    original: '`session: the $' + '{name} actor must be provided`',
    replacement: '``',
    reason: 'The message of the placeholder actor, which the app and every test replace.',
  },
  {
    machine: 'session',
    original: "event.type === 'storage.changed' && (event.accessToken",
    replacement: "event.type === 'storage.changed' || event.accessToken",
    reason:
      'The guard is used only on storage.changed, so it becomes `true`: a session equal to the one held is adopted too, which assigns the same values.',
  },
  {
    machine: 'session',
    original: 'event.accessToken !== context.accessToken',
    replacement: 'true',
    reason: 'The guard then adopts a session equal to the one held as well: the same four values are assigned.',
  },
  {
    machine: 'session',
    original: "'carriesOtherSession'",
    replacement: '""',
    reason:
      'Without the guard a session equal to the one held is adopted too: the same four values are assigned, nothing else happens.',
  },
];

/** The source text a mutant replaces. */
const originalOf = (source: string, m: Mutant) => {
  const lines = source.split('\n');
  const offset = (line: number, column: number) => lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + (column - 1);
  return source.slice(offset(m.location.start.line, m.location.start.column), offset(m.location.end.line, m.location.end.column));
};

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  static?: boolean;
  testsCompleted?: number;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
interface StrykerReport {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

export interface FileScore {
  file: string;
  machine: string;
  killed: number;
  /** of `killed`: mutants that make the module throw while it loads (see killedAtLoad) */
  killedAtLoad: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** runtime/compile errors: not counted in the score */
  errors: number;
  /** detected / valid */
  score: number;
  valid: number;
}

const machineOf = (file: string) => path.basename(file).replace(/\.machine\.ts$|\.ts$/, '');
const pct = (n: number) => Math.round(n * 10) / 10;

/** The file's source with one mutant applied (report locations: 1-based lines and columns, end exclusive). */
export function applyMutant(source: string, m: Mutant): string {
  const lines = source.split('\n');
  const offset = (line: number, column: number) => lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + (column - 1);
  return (
    source.slice(0, offset(m.location.start.line, m.location.start.column)) +
    (m.replacement ?? '') +
    source.slice(offset(m.location.end.line, m.location.end.column))
  );
}

/**
 * Stryker's vitest runner sees no failed test when the test files cannot even be collected: a mutant
 * that makes a machine module throw while it loads (XState refuses the config: `initial: ''`, a
 * target that does not exist...) fails every test file that imports it, yet is reported "Survived"
 * with 0 tests completed. Such mutants are checked here: the mutated module is written next to
 * src/machines and imported in a child process; those that throw on import are counted as killed
 * (`killedAtLoad`). The untouched module must load, else nothing is counted.
 */
async function killedAtLoad(report: StrykerReport): Promise<Set<string>> {
  const candidates: { id: string; file: string; text: string }[] = [];
  for (const [file, { source, mutants }] of Object.entries(report.files))
    for (const m of mutants)
      if (m.status === 'Survived' && m.testsCompleted === 0)
        candidates.push({ id: `${file}#${m.id}`, file, text: applyMutant(source, m) });
  const killed = new Set<string>();
  if (candidates.length === 0) return killed;
  const dir = path.join(root, 'src/.mutant-load');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  try {
    const sibling = (text: string) => text.replace(/from '\.\/([^']+)'/g, "from '../machines/$1'");
    const entries: { id: string; path: string }[] = [];
    const originals = new Set(candidates.map((c) => c.file));
    for (const file of originals) {
      const original = path.join(dir, `original-${path.basename(file)}`);
      fs.writeFileSync(original, sibling(report.files[file]?.source ?? ''));
      entries.push({ id: `original:${file}`, path: original });
    }
    for (const c of candidates) {
      const p = path.join(dir, `m${c.id.split('#')[1]}-${path.basename(c.file)}`);
      fs.writeFileSync(p, sibling(c.text));
      entries.push({ id: c.id, path: p });
    }
    const script = `(async () => {
const entries = ${JSON.stringify(entries)};
const out = [];
for (const e of entries) { try { await import(e.path); } catch { out.push(e.id); } }
process.stdout.write(JSON.stringify(out));
})();`;
    const thrown = await new Promise<string[]>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), '--eval', script], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.on('data', (d) => {
        text += d;
      });
      child.on('close', () => {
        try {
          resolve(JSON.parse(text));
        } catch (e) {
          reject(e);
        }
      });
    });
    const brokenOriginals = new Set(thrown.filter((t) => t.startsWith('original:')).map((t) => t.slice('original:'.length)));
    for (const c of candidates) if (thrown.includes(c.id) && !brokenOriginals.has(c.file)) killed.add(c.id);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return killed;
}

export function summarise(report: StrykerReport, loadKilled: Set<string> = new Set()) {
  const files: FileScore[] = [];
  const survivors: {
    machine: string;
    line: number;
    mutator: string;
    original: string;
    replacement: string;
    equivalent?: string;
  }[] = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    const key = (m: Mutant) => `${file}#${m.id}`;
    const count = (status: string) => mutants.filter((m) => m.status === status && !loadKilled.has(key(m))).length;
    const atLoad = mutants.filter((m) => loadKilled.has(key(m))).length;
    const killed = count('Killed') + atLoad;
    const timeout = count('Timeout');
    const survived = count('Survived');
    const noCoverage = count('NoCoverage');
    const valid = killed + timeout + survived + noCoverage;
    const rel = path.relative(root, path.resolve(root, file));
    files.push({
      file: rel,
      machine: machineOf(rel),
      killed,
      killedAtLoad: atLoad,
      timeout,
      survived,
      noCoverage,
      errors: count('RuntimeError') + count('CompileError'),
      valid,
      score: valid ? pct(((killed + timeout) / valid) * 100) : 100,
    });
    const lines = source.split('\n');
    for (const m of mutants) {
      if ((m.status !== 'Survived' && m.status !== 'NoCoverage') || loadKilled.has(key(m))) continue;
      const line = m.location.start.line;
      const original = originalOf(source, m);
      const flat = original.replace(/\s+/g, ' ');
      const lineText = (lines[line - 1] ?? '').trim();
      const equivalent = EQUIVALENT.find(
        (e) =>
          (e.machine === machineOf(rel) || e.machine === '*') &&
          flat.startsWith(e.original) &&
          (e.replacement === (m.replacement ?? '') || (e.replacement === '' && m.mutatorName === 'OptionalChaining')) &&
          (e.line === undefined || lineText.startsWith(e.line)),
      )?.reason;
      survivors.push({
        machine: machineOf(rel),
        line,
        mutator: m.mutatorName,
        original: original.replace(/\s+/g, ' ').slice(0, 80),
        replacement: (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80) || (lines[line - 1] ?? '').trim().slice(0, 80),
        ...(equivalent ? { equivalent } : {}),
      });
    }
  }
  files.sort((a, b) => a.machine.localeCompare(b.machine));
  const sum = (k: 'killed' | 'timeout' | 'valid') => files.reduce((n, f) => n + f[k], 0);
  const overall = sum('valid') ? pct(((sum('killed') + sum('timeout')) / sum('valid')) * 100) : 100;
  const targeted = TARGETED.map((name) => {
    const f = files.find((x) => x.machine === name);
    return { machine: name, score: f?.score ?? null, met: f ? f.score >= TARGET_EACH : null };
  });
  return { files, overall, survivors, targeted };
}

function runStryker(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', ...args],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const BY_FILE = path.join(root, 'bench/tmp/mutation/by-file');

/** Keeps each file's part of a Stryker report (with when it was measured), so runs over some files add up. */
function storeByFile(report: StrykerReport, measuredAt: string, durationS: number) {
  fs.mkdirSync(BY_FILE, { recursive: true });
  for (const [file, entry] of Object.entries(report.files)) {
    const rel = path.relative(root, path.resolve(root, file));
    fs.writeFileSync(
      path.join(BY_FILE, `${machineOf(rel)}.json`),
      JSON.stringify({ file: rel, measuredAt, runDurationS: durationS, entry }),
    );
  }
}

/** The stored per-file results as one report (the newest measurement of each file). */
function readByFile(only?: Set<string>): { report: StrykerReport; measuredAt: Record<string, string> } {
  const report: StrykerReport = { files: {} };
  const measuredAt: Record<string, string> = {};
  if (!fs.existsSync(BY_FILE)) return { report, measuredAt };
  for (const name of fs.readdirSync(BY_FILE)) {
    const stored = JSON.parse(fs.readFileSync(path.join(BY_FILE, name), 'utf8')) as {
      file: string;
      measuredAt: string;
      runDurationS: number;
      entry: StrykerReport['files'][string];
    };
    if (only && !only.has(stored.file)) continue;
    report.files[stored.file] = stored.entry;
    measuredAt[machineOf(stored.file)] =
      `${stored.measuredAt.slice(0, 16).replace('T', ' ')} UTC, Stryker ${stored.runDurationS} s`;
  }
  return { report, measuredAt };
}

/**
 * Files Stryker finds nothing to mutate in, so no report lists them: notify.ts is the no-op default of the
 * notify effect (an empty arrow function and a type re-export).
 */
const NO_MUTANTS = new Set(['notify.ts']);

/** Whether the report has every file Stryker mutates (src/machines/*.ts). */
function coversAll(report: StrykerReport) {
  const all = fs.readdirSync(path.join(root, 'src/machines')).filter((f) => f.endsWith('.ts') && !NO_MUTANTS.has(f));
  const have = new Set(Object.keys(report.files).map((f) => path.basename(f)));
  return all.every((f) => have.has(f));
}

async function main() {
  const argv = process.argv.slice(2);
  const reportOnly = argv.includes('--report-only');
  const mutate: string[] = [];
  argv.forEach((a, i) => {
    const next = argv[i + 1];
    if (a === '--mutate' && next) mutate.push(next);
  });
  // a quick bench run (BENCH_QUICK=1) mutates the seven targeted machines only
  if (mutate.length === 0 && process.env.BENCH_QUICK === '1')
    mutate.push(TARGETED.map((m) => `src/machines/${m}.machine.ts`).join(','));
  const partial = mutate.length > 0;
  const started = Date.now();
  const load = os.loadavg();
  if (!reportOnly) {
    const code = await runStryker(partial ? ['--mutate', mutate.join(',')] : []);
    if (code !== 0) {
      process.exitCode = code;
      return;
    }
  }
  const durationS = Math.round((Date.now() - started) / 1000);
  if (!reportOnly)
    storeByFile(JSON.parse(fs.readFileSync(REPORT_JSON, 'utf8')) as StrykerReport, new Date().toISOString(), durationS);
  // a full run reports every file; a partial one its own files; --report-only whatever was measured
  const scopeFiles = partial
    ? new Set(
        mutate
          .join(',')
          .split(',')
          .map((f) => path.relative(root, path.resolve(root, f))),
      )
    : undefined;
  const { report, measuredAt } = readByFile(reportOnly && !partial ? undefined : scopeFiles);
  const loadKilled = await killedAtLoad(report);
  const { files, overall, survivors, targeted } = summarise(report, loadKilled);
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out();
  out('Mutation score per machine file (killed + timed out / valid mutants)');
  for (const f of files) {
    const target = (TARGETED as readonly string[]).includes(f.machine) ? ` (target ${TARGET_EACH}%)` : '';
    out(
      `  ${f.machine.padEnd(24)}${`${f.score}%`.padStart(7)}  ${String(f.killed + f.timeout).padStart(4)} of ${String(f.valid).padEnd(4)} survived ${f.survived}, not covered ${f.noCoverage}${target}`,
    );
  }
  out(`  ${'overall'.padEnd(24)}${`${overall}%`.padStart(7)}${partial ? '' : ` (target ${TARGET_OVERALL}%)`}`);
  if (!reportOnly)
    out(
      `Stryker ran ${durationS} s on ${os.cpus().length} CPUs (load average ${load.map((l) => l.toFixed(2)).join(' ')} at the start).`,
    );
  const missed = targeted.filter((t) => t.met === false);
  if (missed.length) out(`Below ${TARGET_EACH}%: ${missed.map((t) => `${t.machine} ${t.score}%`).join(', ')}`);
  if (partial && !argv.includes('--write') && process.env.BENCH_QUICK !== '1') return;
  const { writeSection } = await import('./results.mjs');
  const previous = (await import('./results.mjs')).readResults().sections.mutation as { durationS?: number } | undefined;
  writeSection('mutation', {
    what: 'Stryker 9.6 (vitest runner) over src/machines against the machine tests of the unit project',
    /** 'all' (src/machines), or the files of a partial run written with --write */
    scope: coversAll(report) ? 'all' : Object.keys(report.files),
    measuredAt,
    files,
    overall,
    targetEach: TARGET_EACH,
    targetOverall: TARGET_OVERALL,
    targeted,
    survivors,
    durationS: reportOnly ? (previous?.durationS ?? null) : durationS,
    cpus: os.cpus().length,
    loadAverage: load.map((l) => Math.round(l * 100) / 100),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
