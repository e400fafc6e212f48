import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PhotoType } from '../../src/api/contract/account.js';

/**
 * Uploaded files live in DATA_DIR/uploads under a server-generated, unguessable name (144 random
 * bits). The type comes from the bytes (magic numbers), never from the file name or declared type.
 */
export const EXTENSION: Record<PhotoType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };
export const FILE_NAME = /^[A-Za-z0-9_-]{24}\.(jpg|png|webp)$/;

/**
 * Markup a browser would run if the file were ever opened as a document: HTML tags that carry or load
 * script, SVG, and `javascript:` URLs. Each pattern is a tag name plus its delimiter (at least 5 exact
 * bytes), so the compressed data of a real photo matches by chance about once in thousands of 5 MB files;
 * XMP metadata (`<?xpacket`, `<x:xmpmeta`, `<rdf:RDF`) does not match.
 */
const MARKUP =
  /<(script|html|body|head|iframe|object|embed|meta|link|style|form|base|math|!doctype)[\s/>]|<(svg|img)[\s/>]|javascript:/i;

/** True when the bytes, read as Latin-1 text, contain markup (a polyglot: an image header with a page inside). */
export function containsMarkup(b: Uint8Array): boolean {
  return MARKUP.test(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'));
}

/**
 * JPEG (FF D8 FF), PNG (89 'PNG' 0D 0A 1A 0A), WEBP ('RIFF' size 'WEBP'); anything else is null, and so is
 * a polyglot: image magic followed by HTML, SVG or script anywhere in the file.
 */
export function sniffImageType(b: Uint8Array): PhotoType | null {
  const type = magicImageType(b);
  return type && !containsMarkup(b) ? type : null;
}

function magicImageType(b: Uint8Array): PhotoType | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length >= 8 && png.every((x, i) => b[i] === x)) return 'image/png';
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return null;
}

export const uploadsDir = (dataDir: string) => path.join(dataDir, 'uploads');

/** Writes the bytes under a fresh name and returns that name. */
export async function storeUpload(dataDir: string, bytes: Uint8Array, type: PhotoType): Promise<string> {
  const dir = uploadsDir(dataDir);
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `${randomBytes(18).toString('base64url')}.${EXTENSION[type]}`;
  await fs.promises.writeFile(path.join(dir, name), bytes, { mode: 0o600, flag: 'wx' });
  return name;
}

export async function removeUpload(dataDir: string, name: string): Promise<void> {
  if (!FILE_NAME.test(name)) return;
  await fs.promises.rm(path.join(uploadsDir(dataDir), name), { force: true });
}

/** Public URL of a stored file (served by GET /api/v1/files/:name). */
export const fileUrl = (name: string) => `/api/v1/files/${name}`;
