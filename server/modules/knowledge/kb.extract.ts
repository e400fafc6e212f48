/**
 * Text extraction and chunking of knowledge-base sources.
 * - TXT, MD, CSV: the UTF-8 text as is (a BOM is dropped).
 * - HTML: the visible text, read by htmlparser2's tokenizer in one linear pass (script, style, template,
 *   head, noscript, iframe, noembed, noframes and comments dropped; block elements become line breaks;
 *   character references decoded). No regular expression runs on the markup.
 * - PDF: pdf.js reads the text layer of every page (server/platform/workers/pdf-text.ts), with a bound on the bytes
 *   its streams decode to. Scanned PDFs (images without a text layer) yield no text and fail with a
 *   clear message.
 * The server never runs this on its event loop: `createExtractor` sends each file to a worker thread
 * (kb.extract.thread.ts, server/platform/workers/untrusted-worker.ts) with a heap limit and a time limit; a file that
 * hits any limit fails with KB_MESSAGES.tooComplex.
 */
import fs from 'node:fs';
import { KB_MESSAGES, type KbFileKind } from '@contract/knowledge-base.js';
import { Tokenizer } from 'htmlparser2';
import { pdfText } from '../../platform/workers/pdf-text.js';
import { createUntrustedPool, UntrustedLimitError } from '../../platform/workers/untrusted-worker.js';

/** A source that can never be processed (bad PDF, no text, too complex): the knowledge base fails with `message`. */
export class ExtractError extends Error {}

/** What one file may cost to read. */
export interface ExtractLimits {
  /** wall-clock time of one file, ms (below the job's lease, LEASE_MS, so a live job keeps its lease) */
  timeMs: number;
  /** V8 heap of the worker thread, MB */
  memoryMb: number;
  /** bytes a PDF's streams may decode to, all together */
  pdfDecodedBytes: number;
  /** characters of text one file may yield */
  textChars: number;
}

export const EXTRACT_LIMITS: ExtractLimits = {
  timeMs: 30_000,
  memoryMb: 256,
  pdfDecodedBytes: 64 * 1024 * 1024,
  textChars: 10 * 1024 * 1024,
};

/** Elements whose content is not shown as text. */
const HIDDEN = new Set(['script', 'style', 'template', 'head', 'noscript', 'iframe', 'noembed', 'noframes']);
/** Elements whose end is a line break (and `br` itself). */
const BLOCKS = new Set([
  'br',
  'p',
  'div',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'tr',
  'section',
  'article',
  'header',
  'footer',
  'blockquote',
  'pre',
]);

export function htmlToText(html: string): string {
  const out: string[] = [];
  /** the hidden element being skipped, and how many of it are open */
  let hidden: string | undefined;
  let depth = 0;
  let opening = '';
  const name = (start: number, end: number) => html.slice(start, end).toLowerCase();
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      ontext(start, end) {
        if (!hidden) out.push(html.slice(start, end));
      },
      ontextentity(codepoint) {
        if (!hidden) out.push(codepoint === 0xa0 ? ' ' : String.fromCodePoint(codepoint));
      },
      onopentagname(start, end) {
        opening = name(start, end);
        if (hidden) {
          if (opening === hidden) depth++;
          // the body starts where an unclosed head ends
          else if (hidden === 'head' && opening === 'body') hidden = undefined;
        } else if (HIDDEN.has(opening)) {
          hidden = opening;
          depth = 1;
        }
      },
      onopentagend() {
        if (!hidden) out.push(opening === 'br' ? '\n' : ' ');
      },
      onselfclosingtag() {
        if (!hidden) out.push(opening === 'br' ? '\n' : ' ');
      },
      onclosetag(start, end) {
        const closing = name(start, end);
        if (hidden) {
          if (closing === hidden && --depth === 0) hidden = undefined;
          return;
        }
        out.push(BLOCKS.has(closing) ? '\n' : ' ');
      },
      oncomment() {
        if (!hidden) out.push(' ');
      },
      onattribdata() {},
      onattribentity() {},
      onattribend() {},
      onattribname() {},
      oncdata() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\r]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A file to read (in the worker thread) and what it may cost. */
export interface ExtractTask {
  file: string;
  kind: KbFileKind;
  filename: string;
  limits: Pick<ExtractLimits, 'pdfDecodedBytes' | 'textChars'>;
}

/** The chunks of one stored file, or the message it fails with. Runs in the worker thread. */
export async function extractChunks(task: ExtractTask): Promise<{ chunks: string[] } | { error: string }> {
  const { filename, limits } = task;
  const bytes = await fs.promises.readFile(task.file);
  let text: string;
  if (task.kind === 'pdf') {
    const read = await pdfText(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      maxDecodedBytes: limits.pdfDecodedBytes,
      maxTextChars: limits.textChars,
    });
    if (!read.ok)
      return { error: read.reason === 'too-complex' ? KB_MESSAGES.tooComplex(filename) : KB_MESSAGES.unreadablePdf(filename) };
    text = read.pages.filter(Boolean).join('\n\n');
  } else {
    const raw = new TextDecoder('utf-8').decode(bytes);
    text = task.kind === 'html' ? htmlToText(raw) : raw.replace(/\r\n?/g, '\n').trim();
  }
  if (text.length > limits.textChars) return { error: KB_MESSAGES.tooComplex(filename) };
  if (!text.trim()) return { error: KB_MESSAGES.noText(filename) };
  return { chunks: chunkText(text) };
}

export interface Extractor {
  /** the chunks of a stored file; ExtractError when it can never be read, another error when a retry may help */
  chunks(file: string, kind: KbFileKind, filename: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Reads files in a worker thread (started on first use) within `limits`. */
export function createExtractor(limits: ExtractLimits = EXTRACT_LIMITS): Extractor {
  const pool = createUntrustedPool<ExtractTask, { chunks: string[] } | { error: string }>(
    new URL('./kb.extract.thread.ts', import.meta.url),
    { timeMs: limits.timeMs, memoryMb: limits.memoryMb },
  );
  return {
    async chunks(file, kind, filename) {
      let result: { chunks: string[] } | { error: string };
      try {
        result = await pool.run({
          file,
          kind,
          filename,
          limits: { pdfDecodedBytes: limits.pdfDecodedBytes, textChars: limits.textChars },
        });
      } catch (e) {
        // past the time or memory limit, or the parser took its thread down: the file is to blame
        if (e instanceof UntrustedLimitError) throw new ExtractError(KB_MESSAGES.tooComplex(filename));
        throw e;
      }
      if ('error' in result) throw new ExtractError(result.error);
      return result.chunks;
    },
    close: () => pool.close(),
  };
}

export const CHUNK_TARGET = 1000;
export const CHUNK_MAX = 1500;

/** Splits a long paragraph at sentence ends, else at spaces, else hard, into pieces of at most `max`. */
function splitLong(paragraph: string, max: number): string[] {
  const out: string[] = [];
  let rest = paragraph;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '));
    if (cut < max / 2) cut = window.lastIndexOf(' ');
    if (cut < max / 2) cut = max - 1;
    out.push(rest.slice(0, cut + 1).trim());
    rest = rest.slice(cut + 1).trimStart();
  }
  if (rest.trim()) out.push(rest.trim());
  return out;
}

/**
 * Chunks of about `target` characters (never more than `max`), cut at paragraph boundaries where
 * possible, in order; whitespace-only input gives no chunk.
 */
export function chunkText(text: string, target = CHUNK_TARGET, max = CHUNK_MAX): string[] {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .flatMap((p) => splitLong(p, max));
  const chunks: string[] = [];
  let current = '';
  for (const p of paragraphs) {
    if (current && current.length + 2 + p.length > target) {
      chunks.push(current);
      current = p;
    } else current = current ? `${current}\n\n${p}` : p;
  }
  if (current) chunks.push(current);
  return chunks;
}
