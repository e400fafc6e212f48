import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  KB_FILE_KINDS,
  KB_FILE_MAX_BYTES,
  KB_FILES_MAX,
  KB_FORM_FIELDS,
  KB_MESSAGES,
  KB_REQUEST_MAX_BYTES,
  KB_TEXTS_MAX,
  KB_URLS_MAX,
  type KbFileKind,
  kbFileKindOf,
} from '@contract/knowledge-base.js';
import busboy from 'busboy';
import { HttpError } from '../../platform/http/http.js';
import { smallChunks } from '../../platform/jobs/cooperative.js';
import { byteLimit, TooLargeError } from '../../platform/uploads/byte-limit.js';

/**
 * Streams a knowledge-base upload (multipart/form-data) to disk: nothing is buffered beyond one chunk.
 * Each file goes to `dir/<index>.<kind>` while its bytes are counted and checked:
 * - more than KB_FILE_MAX_BYTES -> 413 at the first byte too many (the rest of the request is not read);
 * - the whole request beyond KB_REQUEST_MAX_BYTES -> 413;
 * - the type comes from the name's extension and the CONTENT must match it: a PDF starts with `%PDF-`
 *   (within its first 1024 bytes, as readers allow); TXT, MD, CSV and HTML must be UTF-8 text without
 *   control characters (tab, line feed, carriage return and form feed allowed); an empty file is refused.
 * On any refusal every file written so far is removed (`dir` is deleted) and an HttpError is thrown.
 */

export interface UploadedFile {
  /** the name the browser sent, without any path */
  filename: string;
  kind: KbFileKind;
  mime: string;
  size: number;
  /** file name inside the knowledge base's directory */
  stored: string;
  /** SHA-256 of the content (hex), computed while streaming: identifies the upload for idempotency */
  sha256: string;
}

export interface KbFormParts {
  /** text fields by name, repeated entries in order */
  fields: Map<string, string[]>;
  files: UploadedFile[];
}

const TEXT_FIELDS = new Set<string>([KB_FORM_FIELDS.name, KB_FORM_FIELDS.texts, KB_FORM_FIELDS.urls, KB_FORM_FIELDS.autoRefresh]);
const PDF_MAGIC = Buffer.from('%PDF-');
const PDF_HEAD = 1024;

/** The display name of an uploaded file: no directories, no control characters, at most 255 characters. */
export function cleanFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return (clean || 'file').slice(0, 255);
}

interface ContentCheck {
  push(chunk: Buffer): void;
  /** the refusal message for `name`, or null when the content matches the kind */
  end(name: string): string | null;
}

function pdfCheck(): ContentCheck {
  let head = Buffer.alloc(0);
  return {
    push(chunk) {
      if (head.length < PDF_HEAD) head = Buffer.concat([head, chunk.subarray(0, PDF_HEAD - head.length)]);
    },
    end: (name) => (head.includes(PDF_MAGIC) ? null : KB_MESSAGES.notPdf(name)),
  };
}

/** UTF-8 without control characters other than \t \n \f \r (a UTF-8 BOM is fine). */
function textCheck(): ContentCheck {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let ok = true;
  return {
    push(chunk) {
      if (!ok) return;
      for (const b of chunk) {
        if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) || b === 0x7f) {
          ok = false;
          return;
        }
      }
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        ok = false;
      }
    },
    end(name) {
      if (ok) {
        try {
          decoder.decode();
        } catch {
          ok = false;
        }
      }
      return ok ? null : KB_MESSAGES.notText(name);
    },
  };
}

export async function readKnowledgeBaseForm(
  body: ReadableStream<Uint8Array> | null,
  headers: { contentType: string; contentLength?: string | undefined },
  dir: string,
): Promise<KbFormParts> {
  if (!headers.contentType.toLowerCase().startsWith('multipart/form-data') || !body) {
    throw new HttpError(400, KB_MESSAGES.notMultipart);
  }
  if (headers.contentLength && Number(headers.contentLength) > KB_REQUEST_MAX_BYTES) {
    throw new HttpError(413, KB_MESSAGES.requestTooLarge);
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { 'content-type': headers.contentType },
      defParamCharset: 'utf8',
      limits: {
        // busboy signals 'limit' when a file REACHES fileSize: one byte more means 'over 10 MB'
        fileSize: KB_FILE_MAX_BYTES + 1,
        files: KB_FILES_MAX,
        fields: KB_TEXTS_MAX + KB_URLS_MAX + 2,
        // a text of KB_TEXT_MAX characters as JSON, with room for escapes
        fieldSize: 1024 * 1024,
        parts: KB_FILES_MAX + KB_TEXTS_MAX + KB_URLS_MAX + 2,
      },
    });
  } catch {
    throw new HttpError(400, KB_MESSAGES.notMultipart);
  }
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });

  const parts: KbFormParts = { fields: new Map(), files: [] };
  const writes: Promise<void>[] = [];
  const open = new Set<{ destroy(): void }>();
  const source = Readable.fromWeb(body as WebReadableStream<Uint8Array>);
  const counter = byteLimit(KB_REQUEST_MAX_BYTES);
  // the multipart parser and the content checks get at most 64 KB at a time, the event loop turning between
  const slicer = smallChunks();
  let failure: HttpError | undefined;

  const finished = new Promise<void>((resolve, reject) => {
    const fail = (e: HttpError) => {
      if (failure) return;
      failure = e;
      slicer.unpipe(bb);
      source.destroy();
      counter.destroy();
      slicer.destroy();
      for (const s of open) s.destroy();
      reject(e);
    };

    counter.on('error', (e) => fail(e instanceof TooLargeError ? new HttpError(413, KB_MESSAGES.requestTooLarge) : malformed()));
    source.on('error', () => fail(malformed()));
    bb.on('error', () => fail(malformed()));
    bb.on('filesLimit', () => fail(new HttpError(400, KB_MESSAGES.tooManyFiles)));
    bb.on('fieldsLimit', () => fail(new HttpError(400, KB_MESSAGES.tooManyTexts)));
    bb.on('partsLimit', () => fail(new HttpError(400, KB_MESSAGES.tooManyTexts)));

    bb.on('field', (name, value, info) => {
      if (failure) return;
      if (!TEXT_FIELDS.has(name)) return fail(new HttpError(400, KB_MESSAGES.unknownField(name.slice(0, 64))));
      if (info.valueTruncated) return fail(new HttpError(400, KB_MESSAGES.textTooLong));
      parts.fields.set(name, [...(parts.fields.get(name) ?? []), value]);
    });

    bb.on('file', (name, stream, info) => {
      if (failure) {
        stream.resume();
        return;
      }
      if (name !== KB_FORM_FIELDS.files) {
        stream.resume();
        return fail(new HttpError(400, KB_MESSAGES.unknownField(name.slice(0, 64))));
      }
      const filename = cleanFileName(info.filename);
      const kind = kbFileKindOf(filename);
      if (!kind) {
        stream.resume();
        return fail(new HttpError(400, KB_MESSAGES.unsupportedFile(filename)));
      }
      const entry: UploadedFile = {
        filename,
        kind,
        mime: KB_FILE_KINDS[kind].mime,
        size: 0,
        stored: `${parts.files.length}.${kind}`,
        sha256: '',
      };
      const digest = createHash('sha256');
      parts.files.push(entry);
      const check = kind === 'pdf' ? pdfCheck() : textCheck();
      const out = fs.createWriteStream(path.join(dir, entry.stored), { mode: 0o600, flags: 'wx' });
      open.add(stream);
      open.add(out);
      stream.on('data', (chunk: Buffer) => {
        entry.size += chunk.length;
        digest.update(chunk);
        check.push(chunk);
      });
      stream.on('limit', () => fail(new HttpError(413, KB_MESSAGES.fileTooLarge(filename))));
      writes.push(
        pipeline(stream, out).then(
          () => {
            open.delete(stream);
            open.delete(out);
            entry.sha256 = digest.digest('hex');
            if (failure) return;
            if (entry.size === 0) return fail(new HttpError(400, KB_MESSAGES.emptyFile(filename)));
            const problem = check.end(filename);
            if (problem) fail(new HttpError(400, problem));
          },
          () => fail(malformed()),
        ),
      );
    });

    bb.on('close', () => resolve());
  });

  source.pipe(counter).pipe(slicer).pipe(bb);
  try {
    await finished;
    await Promise.all(writes);
    if (failure) throw failure;
  } catch (e) {
    await Promise.allSettled(writes);
    await fs.promises.rm(dir, { recursive: true, force: true });
    throw e instanceof HttpError ? e : malformed();
  }
  return parts;
}

/** What identifies one upload (for the Idempotency-Key): its text fields in order and its files' names and content. */
export function kbFormHash(parts: KbFormParts): string {
  const identity = { fields: [...parts.fields], files: parts.files.map((f) => [f.filename, f.sha256]) };
  return createHash('sha256')
    .update(`POST /knowledge-base\n${JSON.stringify(identity)}`)
    .digest('hex');
}

const malformed = () => new HttpError(400, KB_MESSAGES.malformed);
