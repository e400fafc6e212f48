/**
 * The text layer of a PDF, read by pdf.js (pdfjs-dist 4.10, legacy build for Node 20; no eval, no font
 * loading), with a hard bound on what its streams may decode to.
 *
 * A PDF's streams are compressed (FlateDecode, LZW, RunLength...) and may chain filters, so a few
 * kilobytes can decode to gigabytes, all of it in ArrayBuffers that a worker's heap limit does not count.
 * Every decoding stream of pdf.js grows its buffer through one method, `DecodeStream.ensureBuffer(n)`,
 * before writing decoded bytes into it. pdf.js's worker module is loaded here with one line added at the
 * top of that method (the file is read from node_modules and imported from memory; if the line it is
 * added to is not found exactly once, loading fails instead of running unbounded): it counts the bytes
 * every stream asks for, per document, and once the document's total passes `maxDecodedBytes` it refuses
 * (throws) every further request and marks the document too complex. pdf.js swallows some errors and goes
 * on, so the mark, not the exception, decides. Image streams (JPEG, JPEG 2000, JBIG2) have their own
 * decoders, which the text layer never runs.
 *
 * Meant to run in a worker thread (server/platform/workers/untrusted-worker.ts); one document at a time per thread.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

export interface PdfTextLimits {
  /** bytes all of a document's streams may decode to, together */
  maxDecodedBytes: number;
  /** characters of text the document may yield */
  maxTextChars: number;
}

export type PdfTextResult = { ok: true; pages: string[] } | { ok: false; reason: 'unreadable' | 'too-complex' };

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

interface Budget {
  max: number;
  used: number;
  exceeded: boolean;
}

const HOOK = '__parleyPdfDecode';
const ANCHOR = '\n  ensureBuffer(requested) {\n    const buffer = this.buffer;\n';
const HOOKED = `\n  ensureBuffer(requested) {\n    globalThis.${HOOK}(this, requested);\n    const buffer = this.buffer;\n`;

class DecodeBudgetExceeded extends Error {}

let current: Budget | undefined;
/** how many bytes each stream has asked for so far */
let asked = new WeakMap<object, number>();

function onDecode(stream: object, requested: number): void {
  const budget = current;
  // pdf.js decodes only while a document is read here; anything else is refused
  if (!budget || budget.exceeded) throw new DecodeBudgetExceeded();
  const before = asked.get(stream) ?? 0;
  if (requested <= before) return;
  asked.set(stream, requested);
  budget.used += requested - before;
  if (budget.used > budget.max) {
    budget.exceeded = true;
    throw new DecodeBudgetExceeded();
  }
}

/** pdf.js's worker module with the budget hook at the top of DecodeStream.ensureBuffer; throws when it is not there once. */
export function hookDecodeStreams(source: string): string {
  const at = source.indexOf(ANCHOR);
  if (at === -1 || source.indexOf(ANCHOR, at + 1) !== -1)
    throw new Error('pdf.js changed: DecodeStream.ensureBuffer not found once; the decode budget cannot be installed');
  return (
    source
      .replace(ANCHOR, HOOKED)
      // the source map names a file next to the original, meaningless for a module loaded from memory
      .replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n')
  );
}

let loading: Promise<Pdfjs> | undefined;

/** pdf.js with its worker module (run in this thread) patched to count decoded bytes; loaded once. */
export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= (async () => {
    const file = createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.worker.mjs');
    const patched = hookDecodeStreams(await fs.promises.readFile(file, 'utf8'));
    (globalThis as Record<string, unknown>)[HOOK] = onDecode;
    const worker = await import(`data:text/javascript;base64,${Buffer.from(patched).toString('base64')}`);
    // pdf.js runs its "fake worker" in this thread from this module instead of importing its own file
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return loading;
}

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

let queue: Promise<unknown> = Promise.resolve();

/** The text of every page (empty strings for pages without text), or why there is none. */
export function pdfText(bytes: Uint8Array, limits: PdfTextLimits): Promise<PdfTextResult> {
  const run = queue.then(() => readPdf(bytes, limits));
  queue = run.catch(() => undefined);
  return run;
}

async function readPdf(bytes: Uint8Array, limits: PdfTextLimits): Promise<PdfTextResult> {
  const pdfjs = await loadPdfjs();
  const budget: Budget = { max: limits.maxDecodedBytes, used: 0, exceeded: false };
  const failed = (): PdfTextResult => ({ ok: false, reason: budget.exceeded ? 'too-complex' : 'unreadable' });
  current = budget;
  asked = new WeakMap();
  try {
    let doc: Awaited<ReturnType<Pdfjs['getDocument']>['promise']>;
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
      return failed();
    }
    try {
      const pages: string[] = [];
      let chars = 0;
      for (let i = 1; i <= doc.numPages; i++) {
        const page = await doc.getPage(i);
        const content = await page.getTextContent();
        const text = (content.items as TextItem[])
          .map((it) => (it.str ?? '') + (it.hasEOL ? '\n' : ''))
          .join('')
          .trim();
        page.cleanup();
        chars += text.length;
        if (budget.exceeded || chars > limits.maxTextChars) return { ok: false, reason: 'too-complex' };
        pages.push(text);
      }
      return budget.exceeded ? failed() : { ok: true, pages };
    } catch {
      return failed();
    } finally {
      await doc.destroy();
    }
  } finally {
    current = undefined;
  }
}
