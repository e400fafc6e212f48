/**
 * Redaction benchmark: precision and recall of the personal-data detectors (server/platform/redaction.ts)
 * per marker over the labelled corpus of bench/redaction-corpus.ts, how many labelled values survive
 * word for word, and the detectors' speed on a long transcript. Pure computation, a second or two.
 *
 * Per line and marker: expected = the labels of that type, produced = the markers of that type in the
 * output, true positives = the smaller of the two. Precision = TP / produced, recall = TP / expected.
 *
 *   npx tsx bench/redaction.ts     prints the figures and writes the `redaction` section of bench/results.json
 */

import { REDACT_MAX_CHARS, redactText } from '../server/platform/redaction.js';
import { PII_MARKERS } from '../src/api/contract/data-storage.js';
import { REDACTION_CORPUS } from './redaction-corpus.js';
import { writeSection } from './results.mjs';

const LABEL = /\{([A-Z_]+):([^}]+)\}/g;
const types = PII_MARKERS.map((m) => m.slice(1, -1));

const counts = Object.fromEntries(types.map((t) => [t, { expected: 0, produced: 0, tp: 0 }]));
const misses: string[] = [];
let leaked = 0;
let labelled = 0;
let cleanChanged = 0;
let clean = 0;
for (const line of REDACTION_CORPUS) {
  const text = line.replace(LABEL, '$2');
  const labels = [...line.matchAll(LABEL)].map((m) => ({ type: m[1]!, value: m[2]! }));
  const out = redactText(text);
  if (labels.length === 0) {
    clean++;
    if (out !== text) cleanChanged++;
  }
  for (const l of labels) {
    labelled++;
    if (out.includes(l.value)) leaked++;
  }
  for (const t of types) {
    const expected = labels.filter((l) => l.type === t).length;
    const produced = out.split(`[${t}]`).length - 1;
    const c = counts[t]!;
    c.expected += expected;
    c.produced += produced;
    c.tp += Math.min(expected, produced);
  }
  const want = line.replace(LABEL, '[$1]');
  if (out !== want) misses.push(`  ${text}\n    -> ${out}`);
}

const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000);
const per_marker = Object.fromEntries(
  types.map((t) => {
    const c = counts[t]!;
    return [t, { ...c, precision: ratio(c.tp, c.produced), recall: ratio(c.tp, c.expected) }];
  }),
);
const all = Object.values(counts).reduce(
  (a, c) => ({ expected: a.expected + c.expected, produced: a.produced + c.produced, tp: a.tp + c.tp }),
  {
    expected: 0,
    produced: 0,
    tp: 0,
  },
);

// speed: a transcript of the longest text one turn may hold, built from the corpus, redacted ten times
const long = REDACTION_CORPUS.map((l) => l.replace(LABEL, '$2'))
  .join('. ')
  .repeat(20)
  .slice(0, REDACT_MAX_CHARS);
const times: number[] = [];
for (let i = 0; i < 10; i++) {
  const t0 = performance.now();
  redactText(long);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);

const section = {
  what: `server/platform/redaction.ts over ${REDACTION_CORPUS.length} labelled lines of bench/redaction-corpus.ts (${labelled} personal values, ${clean} lines without any), written apart from the unit tests' cases`,
  lines: REDACTION_CORPUS.length,
  labelled,
  per_marker,
  overall: { ...all, precision: ratio(all.tp, all.produced), recall: ratio(all.tp, all.expected) },
  leaked_values: leaked,
  clean_lines_changed: cleanChanged,
  clean_lines: clean,
  exact_lines: REDACTION_CORPUS.length - misses.length,
  long_text_chars: long.length,
  long_text_ms_median: Math.round(times[5]! * 10) / 10,
};
writeSection('redaction', section);
process.stdout.write(`${JSON.stringify(section, null, 2)}\nLines not exactly as labelled:\n${misses.join('\n')}\n`);
