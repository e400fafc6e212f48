/**
 * Personal data in call text, replaced by typed markers ([PHONE], [EMAIL], [DATE_OF_BIRTH], [SSN],
 * [CARD_NUMBER], [ADDRESS], [NAME]) for the 'everything_but_pii' storage level. Pure: text in, text out.
 *
 * The text is what a recogniser writes, so numbers come spoken as often as written: 'five five five, one two
 * three four', 'four two four two, four two four two, ...', 'March third nineteen forty-two', 'john dot smith
 * at gmail dot com'. Detectors run in a fixed order (emails, dates, addresses, SSNs, digit runs, names) so
 * a later one never splits an earlier marker. Names come from the call's dynamic variables whose key says
 * 'name' and from the caller's own words ('my name is ...', 'this is ...', 'call me ...'), and are then
 * replaced wherever they occur in the call. Every pattern is linear (no nested quantifiers over the same
 * text) and each text is cut at REDACT_MAX_CHARS first, so a tenant's input cannot stall the event loop.
 */
import type { PiiMarker } from '@contract/data-storage.js';

export const REDACT_MAX_CHARS = 20_000;

const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEENS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ORDINALS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
  'twentieth',
  'thirtieth',
];
const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';

const alt = (words: readonly string[]) => words.filter(Boolean).join('|');
const S = String.raw`[\s,-]+`;
const UNIT = `(?:${alt(UNITS.slice(1))})`;
const TEEN = `(?:${alt(TEENS)})`;
const TEN = `(?:${alt(TENS)})`;
const ORD = `(?:${alt(ORDINALS)})`;
const ORD_UNIT = `(?:${alt(ORDINALS.slice(0, 9))})`;
const DAY = `(?:\\d{1,2}(?:st|nd|rd|th)?|(?:twenty|thirty)${S}${ORD_UNIT}|${ORD}|(?:twenty|thirty)(?:${S}${UNIT})?|${TEEN}|${UNIT})`;
const YEAR = `(?:\\d{4}|(?:nineteen|twenty)${S}(?:${TEN}(?:${S}${UNIT})?|${TEEN}|(?:oh|o)${S}${UNIT}|hundred)|two${S}thousand(?:${S}(?:and${S})?(?:${TEEN}|${TEN}(?:${S}${UNIT})?|${UNIT}))?)`;
const MONTH = `(?:${MONTHS})\\.?`;

const DATE_RES = [
  new RegExp(`\\b(?:the${S})?${DAY}${S}(?:of${S})?${MONTH}(?:${S}${YEAR})?\\b`, 'gi'),
  new RegExp(`\\b${MONTH}${S}(?:the${S})?${DAY}(?:${S}(?:of${S})?${YEAR})?\\b`, 'gi'),
  /\b\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})\b/g,
  new RegExp(`\\b(?:in|of)${S}${YEAR}\\b`, 'gi'),
];
const BIRTH_CONTEXT = /\b(?:birth|born|birthday|dob|d\.o\.b)\b/i;
const FULL_YEAR =
  /\b(?:1[89]\d\d|200\d|201[0-5])\b|\bnineteen\b|two\s+thousand(?:\s+and)?\s+(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen)?\b/i;

const TLDS = 'com|org|net|edu|gov|io|co|uk|us|de|fr|ca|au|info|me|nl|es|it|biz|health';
const EMAIL_WRITTEN = /[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}/g;
const JOIN = String.raw`(?:\s*\.\s*|\s+(?:dot|underscore|dash|hyphen|period)\s+|_|-)`;
const EMAIL_SPOKEN = new RegExp(
  `\\b[a-z0-9+]{1,40}(?:${JOIN}[a-z0-9]{1,40}){0,4}\\s+at\\s+[a-z0-9-]{1,40}(?:${JOIN}[a-z0-9-]{1,40}){0,3}(?:\\s*\\.\\s*|\\s+dot\\s+)(?:${TLDS})\\b`,
  'gi',
);

const STREET =
  'street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|terrace|circle|highway|hwy|parkway|pkwy|square|trail';
const HOUSE_NUMBER = `(?:\\d{1,6}[a-z]?|(?:${UNIT}|${TEEN}|${TEN}|hundred|oh)(?:${S}(?:${UNIT}|${TEEN}|${TEN}|hundred|oh)){0,4})`;
const ADDRESS_RE = new RegExp(
  `\\b${HOUSE_NUMBER}\\s+(?:[a-z][a-z'.]{0,30}\\s+){1,3}(?:${STREET})\\b\\.?(?:,?\\s+(?:apartment|apt|unit|suite)\\s+[a-z0-9-]{1,10})?`,
  'gi',
);

const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g;
const SSN_WRITTEN = /\b\d{3}[- ]\d{2}[- ]\d{4}\b/g;
const SSN_CONTEXT = /\b(?:social(?:\s+security)?|ssn|s\s*s\s*n)\b/i;
const CARD_CONTEXT = /\b(?:card|visa|mastercard|amex|credit|debit)\b/i;

const NAME_INTRO =
  /\b(?:my\s+name\s+is|(?:last|first|sur)\s*name\s+is|my\s+name's|name's|i\s+am\s+called|call\s+me|this\s+is|it's|i'm|i\s+am|patient\s+is|speaking\s+with)\s+/gi;
/** capitalised words right after an introduction (recognisers capitalise names) */
const CAPITALISED = /(?:[A-Z][a-zA-Z'-]{1,30})(?:\s+[A-Z][a-zA-Z'-]{1,30}){0,2}/y;
const NAME_INTRO_LOWER = /\b(?:my|last|first)\s+name\s+is\s+([a-z][a-z'-]{1,30})(?:\s+([a-z][a-z'-]{1,30}))?/gi;
const NOT_NAMES = new Set(
  [
    'a',
    'an',
    'the',
    'calling',
    'not',
    'just',
    'here',
    'sorry',
    'fine',
    'good',
    'great',
    'ok',
    'okay',
    'yes',
    'no',
    'so',
    'really',
    'very',
    'about',
    'looking',
    'trying',
    'going',
    'wondering',
    'and',
    'um',
    'uh',
    'i',
    'it',
    'is',
    'was',
    'in',
    'on',
    'at',
    'for',
    'to',
    'with',
    'hello',
    'hi',
    'hey',
    'thanks',
    'thank',
    'please',
    'actually',
    'still',
    'also',
    'correct',
    'right',
    'sure',
    'that',
    'this',
    'what',
    'my',
    'your',
    'parley',
    'monday',
    'tuesday',
    'wednesday',
    'thursday',
    'friday',
    'saturday',
    'sunday',
  ].concat(MONTHS.split('|')),
);

/** A spoken or written number word's digits, or undefined. `next` lets 'twenty' take a following unit. */
function wordDigits(word: string): string | undefined {
  const w = word.toLowerCase();
  if (/^\d+$/.test(w)) return w;
  const u = UNITS.indexOf(w);
  if (u >= 0) return String(u);
  if (w === 'oh' || w === 'o') return '0';
  const t = TEENS.indexOf(w);
  if (t >= 0) return String(10 + t);
  const d = TENS.indexOf(w);
  if (d >= 2) return `${d}0`;
  return undefined;
}

interface Token {
  word: string;
  start: number;
  end: number;
}

/**
 * Runs of number tokens (digits and spoken numbers, 'double'/'triple', joined by spaces, commas, dashes,
 * dots, slashes or brackets) with the digits they read as.
 */
function numberRuns(text: string): { start: number; end: number; digits: string }[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(/\[[A-Z_]+\]|\d+|[A-Za-z]+/g))
    tokens.push({ word: m[0], start: m.index, end: m.index + m[0].length });
  const runs: { start: number; end: number; digits: string }[] = [];
  let i = 0;
  while (i < tokens.length) {
    const first = tokens[i]!;
    // 'oh' and 'o' only count inside a run
    if (first.word.toLowerCase() === 'oh' || first.word.toLowerCase() === 'o' || !isNumberToken(tokens, i)) {
      i++;
      continue;
    }
    let digits = '';
    let j = i;
    let end = first.end;
    while (j < tokens.length && isNumberToken(tokens, j)) {
      if (j > i && !/^[\s,.\-()/+]*$/.test(text.slice(tokens[j - 1]!.end, tokens[j]!.start))) break;
      const w = tokens[j]!.word.toLowerCase();
      if (w === 'double' || w === 'triple') {
        const next = wordDigits(tokens[j + 1]!.word) ?? '';
        digits += next.repeat(w === 'double' ? 2 : 3);
        end = tokens[j + 1]!.end;
        j += 2;
        continue;
      }
      if (w === 'hundred') {
        const next = tokens[j + 1] ? wordDigits(tokens[j + 1]!.word) : undefined;
        digits += next === undefined ? '00' : next.length === 1 ? '0' : '';
      } else {
        const d = wordDigits(w)!;
        const next = tokens[j + 1];
        const nextUnit = next ? UNITS.indexOf(next.word.toLowerCase()) : -1;
        const joined = next ? /^[\s-]*$/.test(text.slice(tokens[j]!.end, next.start)) : false;
        // 'fifty-five' / 'fifty five' reads as 55, not 505
        if (TENS.indexOf(w) >= 2 && nextUnit >= 1 && joined) {
          digits += `${d[0]}${nextUnit}`;
          end = next!.end;
          j += 2;
          continue;
        }
        digits += d;
      }
      end = tokens[j]!.end;
      j++;
    }
    // a written number's opening bracket or plus sign belongs to it
    const start = first.start > 0 && '(+'.includes(text[first.start - 1]!) ? first.start - 1 : first.start;
    runs.push({ start, end, digits });
    i = Math.max(j, i + 1);
  }
  return runs;
}

function isNumberToken(tokens: Token[], i: number): boolean {
  const w = tokens[i]!.word.toLowerCase();
  if (w === 'double' || w === 'triple') return tokens[i + 1] !== undefined && wordDigits(tokens[i + 1]!.word) !== undefined;
  if (w === 'hundred') return i > 0 && wordDigits(tokens[i - 1]!.word) !== undefined;
  return wordDigits(w) !== undefined;
}

type Span = { start: number; end: number; marker: PiiMarker };

/** Replaces spans (non-overlapping, any order) with their markers. */
function apply(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue;
    out += text.slice(at, s.start) + s.marker;
    at = s.end;
  }
  return out + text.slice(at);
}

function replaceAll(text: string, re: RegExp, marker: PiiMarker, keep?: (m: RegExpMatchArray) => boolean): string {
  const spans: Span[] = [];
  for (const m of text.matchAll(re)) {
    if (keep && !keep(m)) continue;
    spans.push({ start: m.index!, end: m.index! + m[0].length, marker });
  }
  return apply(text, spans);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface RedactOptions {
  /** names known before the call (the dynamic variables' values whose key says 'name') */
  names?: readonly string[];
}

/** Names the caller gives ('my name is Jane Doe' -> Jane, Doe). */
export function namesIn(text: string): string[] {
  const out: string[] = [];
  const t = text.slice(0, REDACT_MAX_CHARS);
  for (const m of t.matchAll(NAME_INTRO)) {
    CAPITALISED.lastIndex = m.index + m[0].length;
    const name = CAPITALISED.exec(t);
    if (!name) continue;
    for (const w of name[0].split(/\s+/)) {
      if (NOT_NAMES.has(w.toLowerCase())) break;
      out.push(w);
    }
  }
  for (const m of t.matchAll(NAME_INTRO_LOWER)) {
    const [a, b] = [m[1], m[2]];
    if (a && !NOT_NAMES.has(a.toLowerCase())) {
      out.push(a);
      if (b && !NOT_NAMES.has(b.toLowerCase())) out.push(b);
    }
  }
  return out;
}

/** The names a call's dynamic variables carry (values of keys that say 'name'), word by word. */
export function namesFromVariables(variables: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const [k, value] of Object.entries(variables ?? {})) {
    if (!/name/i.test(k) || typeof value !== 'string') continue;
    for (const w of value.split(/\s+/)) if (w.length >= 2 && !NOT_NAMES.has(w.toLowerCase())) out.push(w);
  }
  return out;
}

/** One text with its personal data replaced by markers. */
export function redactText(input: string, options: RedactOptions = {}): string {
  let text = input.length > REDACT_MAX_CHARS ? input.slice(0, REDACT_MAX_CHARS) : input;
  text = replaceAll(text, EMAIL_WRITTEN, '[EMAIL]');
  text = replaceAll(text, EMAIL_SPOKEN, '[EMAIL]');
  for (const re of DATE_RES) {
    text = replaceAll(text, re, '[DATE_OF_BIRTH]', (m) => {
      const before = text.slice(Math.max(0, m.index! - 60), m.index!);
      if (BIRTH_CONTEXT.test(before) || BIRTH_CONTEXT.test(m[0])) return true;
      // 'in nineteen fifty' alone is a year, not a date: only with a birth word before it
      return !/^(?:in|of)\b/i.test(m[0]) && FULL_YEAR.test(m[0]);
    });
  }
  text = replaceAll(text, ADDRESS_RE, '[ADDRESS]');
  text = replaceAll(text, SSN_WRITTEN, '[SSN]');
  const spans: Span[] = [];
  // written timestamps ('2026-11-22T10:00:00Z') are times, not phone numbers
  const stamps = [...text.matchAll(ISO_TIME)].map((m) => [m.index, m.index + m[0].length] as const);
  for (const run of numberRuns(text)) {
    if (stamps.some(([a, b]) => run.start < b && run.end > a)) continue;
    const n = run.digits.length;
    const before = text.slice(Math.max(0, run.start - 60), run.start);
    let marker: PiiMarker | undefined;
    if (n === 9 && SSN_CONTEXT.test(before)) marker = '[SSN]';
    else if (n >= 13 && n <= 19) marker = '[CARD_NUMBER]';
    else if (n >= 12 && CARD_CONTEXT.test(before)) marker = '[CARD_NUMBER]';
    else if (n >= 7 && n <= 15) marker = '[PHONE]';
    else if (n === 4 && CARD_CONTEXT.test(before) && /\blast\s+(?:four|4)\b/i.test(before)) marker = '[CARD_NUMBER]';
    if (marker) spans.push({ ...run, marker });
  }
  text = apply(text, spans);
  const names = [...new Set([...(options.names ?? []), ...namesIn(text)])].filter((n) => n.length >= 2).slice(0, 50);
  if (names.length > 0) {
    const re = new RegExp(`\\b(?:${names.map(escapeRe).join('|')})\\b`, 'gi');
    text = replaceAll(text, re, '[NAME]');
  }
  return text;
}

/** Every string in a JSON value redacted (function arguments and results); keys are kept. */
export function redactValue(value: unknown, options: RedactOptions = {}, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, options);
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 1000).map((x) => redactValue(x, options, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(value).slice(0, 1000)) out[k] = redactValue(x, options, depth + 1);
  return out;
}
