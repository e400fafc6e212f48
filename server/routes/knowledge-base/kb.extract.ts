/**
 * Text extraction and chunking of knowledge-base sources.
 * - TXT, MD, CSV: the UTF-8 text as is (a BOM is dropped).
 * - HTML: the visible text (script, style, template, head and comments dropped; block elements become
 *   line breaks; the common named and numeric character references decoded).
 * - PDF: pdf.js (pdfjs-dist 4.10, legacy build for Node 20; no eval, no font loading) reads the text
 *   layer of every page. Scanned PDFs (images without a text layer) yield no text and fail with a clear
 *   message. Runs on the server's thread, page by page.
 */
import fs from 'node:fs';
import { KB_MESSAGES, type KbFileKind } from '../../../src/api/contract/knowledge-base.js';

/** A source that can never be processed (bad PDF, no text): the knowledge base fails with `message`. */
export class ExtractError extends Error {}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|template|head|noscript)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr|\/section|\/article|\/header|\/footer|\/blockquote|\/pre)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ');
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.replace(/[ \t\f\r]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

export async function pdfToText(bytes: Uint8Array, filename: string): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let doc: Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>;
  try {
    doc = await pdfjs.getDocument({
      data: bytes,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
    }).promise;
  } catch {
    throw new ExtractError(KB_MESSAGES.unreadablePdf(filename));
  }
  try {
    const pages: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const content = await page.getTextContent();
      pages.push(
        (content.items as TextItem[])
          .map((it) => (it.str ?? '') + (it.hasEOL ? '\n' : ''))
          .join('')
          .trim(),
      );
      page.cleanup();
    }
    return pages.filter(Boolean).join('\n\n');
  } catch {
    throw new ExtractError(KB_MESSAGES.unreadablePdf(filename));
  } finally {
    await doc.destroy();
  }
}

/** The text of a stored file. */
export async function fileToText(file: string, kind: KbFileKind, filename: string): Promise<string> {
  const bytes = await fs.promises.readFile(file);
  let text: string;
  if (kind === 'pdf') text = await pdfToText(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), filename);
  else {
    const raw = new TextDecoder('utf-8').decode(bytes);
    text = kind === 'html' ? htmlToText(raw) : raw.replace(/\r\n?/g, '\n').trim();
  }
  if (!text.trim()) throw new ExtractError(KB_MESSAGES.noText(filename));
  return text;
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
