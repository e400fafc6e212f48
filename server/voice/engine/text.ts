/**
 * Text handling of the call engine, all linear in the input (nothing a tenant writes may run unbounded on
 * the event loop that carries live audio):
 * - `fillVariables`: {{name}} placeholders of the prompt, welcome and voicemail messages;
 * - `SentenceSplitter`: cuts the LLM's streamed reply into sentences as they arrive, so the voice starts on
 *   the first sentence while the LLM is still writing the rest;
 * - `applyPronunciations`: the agent's pronunciation list, as SSML phoneme tags for voices that read them.
 */
import type { Pronunciation } from '@contract/agent/records.js';

const VARIABLE = /\{\{\s*([A-Za-z0-9_.-]{1,100})\s*\}\}/g;

/** Replaces every {{name}} with its value; a name without a value becomes '' (the LLM never sees braces). */
export function fillVariables(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(VARIABLE, (_whole, name: string) => (Object.hasOwn(values, name) ? (values[name] ?? '') : ''));
}

/** The names used in a template, in order of first use. */
export function variableNames(template: string): string[] {
  const names = new Set<string>();
  for (const m of template.matchAll(VARIABLE)) names.add(m[1] as string);
  return [...names];
}

const ABBREVIATIONS = new Set([
  'dr',
  'mr',
  'mrs',
  'ms',
  'st',
  'jr',
  'sr',
  'prof',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'approx',
  'appt',
  'dept',
  'min',
  'max',
  'a.m',
  'p.m',
]);
const ENDS = new Set(['.', '!', '?', '…']);
/** Sentence ends that need no space after them (Chinese, Japanese). */
const WIDE_ENDS = new Set(['。', '！', '？']);
const CLOSERS = new Set(['"', "'", ')', ']', '”', '’', '»']);
/** A sentence longer than this is cut at a comma, so a long sentence does not hold up the voice. */
export const SOFT_MAX = 220;
/** Nothing shorter than this is spoken on its own (it waits for more words). */
const MIN_SENTENCE = 3;

/**
 * Cuts streamed text into sentences. `push` returns the sentences completed by a delta; `flush` the rest.
 * A sentence ends at . ! ? … followed by a space (after any closing quote or bracket), at 。！？, or at a
 * line break; a period after a common abbreviation or a single letter does not end one.
 */
export class SentenceSplitter {
  private buffer = '';

  push(delta: string): string[] {
    this.buffer += delta;
    const out: string[] = [];
    let start = 0;
    const b = this.buffer;
    for (let i = 0; i < b.length; i++) {
      const ch = b[i] as string;
      let end = -1;
      if (ch === '\n') end = i;
      else if (WIDE_ENDS.has(ch)) end = i + 1;
      else if (ENDS.has(ch)) {
        let j = i + 1;
        while (j < b.length && (ENDS.has(b[j] as string) || CLOSERS.has(b[j] as string))) j++;
        if (j >= b.length) break; // wait: the next delta says whether a space follows
        if (/\s/.test(b[j] as string) && !(ch === '.' && this.isAbbreviation(b, start, i))) end = j;
        i = j - 1;
      }
      if (end >= 0) {
        const sentence = b.slice(start, end).trim();
        if (sentence.length >= MIN_SENTENCE || (sentence && ch !== '.')) {
          out.push(sentence);
          start = end;
        }
      } else if (i - start >= SOFT_MAX && (ch === ',' || ch === ';' || ch === ':') && /\s/.test(b[i + 1] ?? '')) {
        out.push(b.slice(start, i + 1).trim());
        start = i + 1;
      }
    }
    this.buffer = b.slice(start);
    return out.filter(Boolean);
  }

  flush(): string[] {
    const rest = this.buffer.trim();
    this.buffer = '';
    return rest ? [rest] : [];
  }

  /** The word before a period at `dot` is an abbreviation or a single letter (initials). */
  private isAbbreviation(b: string, from: number, dot: number): boolean {
    let k = dot - 1;
    while (k >= from && /[A-Za-z.]/.test(b[k] as string)) k--;
    const word = b.slice(k + 1, dot).toLowerCase();
    return word.length === 1 || ABBREVIATIONS.has(word);
  }
}

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);

/**
 * The text with each listed word (whole word, any case) wrapped in an SSML phoneme tag of its
 * pronunciation (IPA or CMU arpabet), for voices that read SSML; other text is XML-escaped when `ssml`
 * is on, and returned as is when it is off (the voice cannot use a pronunciation then).
 */
export function applyPronunciations(text: string, pronunciations: readonly Pronunciation[], ssml: boolean): string {
  if (!ssml || pronunciations.length === 0) return text;
  const byWord = new Map<string, Pronunciation>();
  for (const p of pronunciations) if (p.word.trim()) byWord.set(p.word.trim().toLowerCase(), p);
  // words are runs of letters, digits, apostrophes and hyphens: one pass over the text
  return text.replace(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[^\p{L}\p{N}]+/gu, (token) => {
    const p = byWord.get(token.toLowerCase());
    if (!p) return escapeXml(token);
    const alphabet = p.type === 'IPA' ? 'ipa' : 'cmu-arpabet';
    return `<phoneme alphabet="${alphabet}" ph="${escapeXml(p.phoneme)}">${escapeXml(token)}</phoneme>`;
  });
}

/** The words of a comma-separated list (boosted keywords, backchannel words). */
export const commaList = (text: string) =>
  text
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean)
    .slice(0, 100);
