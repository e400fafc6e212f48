import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PhotoType } from '@contract/account.js';

/**
 * Uploaded files live in DATA_DIR/uploads under a server-generated, unguessable name (144 random
 * bits). The type comes from the bytes (magic numbers), never from the file name or declared type, and
 * the bytes stored are the image encoded again by the server, never the upload itself.
 */
export const EXTENSION: Record<PhotoType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };
export const FILE_NAME = /^[A-Za-z0-9_-]{24}\.(jpg|png|webp)$/;

/**
 * JPEG (FF D8 FF), PNG (89 'PNG' 0D 0A 1A 0A), WEBP ('RIFF' size 'WEBP'); anything else is null. Only the
 * type: whether the bytes are an image at all, and what is kept of them, is decided by decoding and
 * encoding them again (reencodePhoto, server/platform/uploads/photos.ts).
 */
export function sniffImageType(b: Uint8Array): PhotoType | null {
  return magicImageType(b);
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

/** A fresh, unguessable name for an upload of this type. */
export const newUploadName = (type: PhotoType) => `${randomBytes(18).toString('base64url')}.${EXTENSION[type]}`;

/** Writes the bytes under `name` (from newUploadName; never overwrites). */
export async function storeUpload(dataDir: string, name: string, bytes: Uint8Array): Promise<void> {
  const dir = uploadsDir(dataDir);
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.promises.writeFile(path.join(dir, name), bytes, { mode: 0o600, flag: 'wx' });
}

export async function removeUpload(dataDir: string, name: string): Promise<void> {
  if (!FILE_NAME.test(name)) return;
  await fs.promises.rm(path.join(uploadsDir(dataDir), name), { force: true });
}

/** Public URL of a stored file (served by GET /api/v1/files/:name). */
export const fileUrl = (name: string) => `/api/v1/files/${name}`;
