// bench/results.json: { generatedAt, sections: { <name>: {...} } }. Each benchmark owns one section and
// writes it with `writeSection`, keeping the others. Keys are written sorted so diffs stay small.
import fs from 'node:fs';
import path from 'node:path';

/**
 * A quick run (`npm run bench -- --quick`, or BENCH_QUICK=1 for one suite) measures less (fewer rows,
 * shorter phases, fewer repeats) and writes bench/results.quick.json and bench/REPORT.quick.md instead, so
 * it never replaces the full figures.
 */
export const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
export const RESULTS_FILE = path.resolve(import.meta.dirname, QUICK ? 'results.quick.json' : 'results.json');

const sortKeys = (value) => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys(value[k])]),
    );
  }
  return value;
};

export function readResults(file = RESULTS_FILE) {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && parsed.sections && typeof parsed.sections === 'object') return parsed;
  } catch {
    // missing or unreadable: start over
  }
  return { generatedAt: null, sections: {} };
}

/** Replaces one section of the results file (others are kept) and stamps the time. */
export function writeSection(name, data, { file = RESULTS_FILE, now = new Date() } = {}) {
  const results = readResults(file);
  results.sections[name] = data;
  results.generatedAt = now.toISOString();
  fs.writeFileSync(file, `${JSON.stringify(sortKeys(results), null, 2)}\n`);
  return results;
}
