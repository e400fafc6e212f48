import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of provider credentials.
 *
 * Each value gets a fresh random 256-bit data key; the value is sealed with AES-256-GCM under that data
 * key, and the data key is sealed (wrapped) with AES-256-GCM under the master key. Both seals use the
 * same additional authenticated data: the company id, the provider and the field name. A ciphertext
 * copied to another company, provider or field therefore fails to open, as does any altered byte.
 *
 * Stored form: `v1.` + base64url( wrapIv(12) | wrapTag(16) | wrappedKey(32) | iv(12) | tag(16) | ciphertext ).
 */

export interface SecretContext {
  companyId: string;
  provider: string;
  field: string;
}

/** Thrown when a stored secret cannot be opened. Its message never contains any part of the secret. */
export class SecretDecryptError extends Error {
  constructor() {
    super('A stored secret could not be decrypted');
  }
}

const VERSION = 'v1';
const IV = 12;
const TAG = 16;
const KEY = 32;

function aad(ctx: SecretContext): Buffer {
  return Buffer.from(JSON.stringify(['parley.provider-secret.v1', ctx.companyId, ctx.provider, ctx.field]), 'utf8');
}

function seal(key: Uint8Array, plain: Buffer, ad: Buffer): { iv: Buffer; tag: Buffer; data: Buffer } {
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG });
  cipher.setAAD(ad);
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), data };
}

function open(key: Uint8Array, iv: Buffer, tag: Buffer, data: Buffer, ad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG });
  decipher.setAAD(ad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]);
}

function checkMasterKey(masterKey: Uint8Array) {
  if (masterKey.byteLength !== KEY) throw new Error('The master key must be 32 bytes');
}

export function encryptSecret(masterKey: Uint8Array, plaintext: string, ctx: SecretContext): string {
  checkMasterKey(masterKey);
  const ad = aad(ctx);
  const dataKey = randomBytes(KEY);
  try {
    const wrapped = seal(masterKey, dataKey, ad);
    const body = seal(dataKey, Buffer.from(plaintext, 'utf8'), ad);
    const blob = Buffer.concat([wrapped.iv, wrapped.tag, wrapped.data, body.iv, body.tag, body.data]);
    return `${VERSION}.${blob.toString('base64url')}`;
  } finally {
    dataKey.fill(0);
  }
}

export function decryptSecret(masterKey: Uint8Array, stored: string, ctx: SecretContext): string {
  checkMasterKey(masterKey);
  const [version, encoded, extra] = stored.split('.');
  if (version !== VERSION || !encoded || extra !== undefined) throw new SecretDecryptError();
  const blob = Buffer.from(encoded, 'base64url');
  const head = IV + TAG + KEY + IV + TAG;
  if (blob.byteLength < head) throw new SecretDecryptError();
  const ad = aad(ctx);
  let dataKey: Buffer | undefined;
  try {
    const at = [IV, IV + TAG, IV + TAG + KEY, IV + TAG + KEY + IV, head];
    const wrapIv = blob.subarray(0, at[0]);
    const wrapTag = blob.subarray(at[0], at[1]);
    const wrappedKey = blob.subarray(at[1], at[2]);
    const iv = blob.subarray(at[2], at[3]);
    const tag = blob.subarray(at[3], at[4]);
    const data = blob.subarray(head);
    dataKey = open(masterKey, wrapIv, wrapTag, wrappedKey, ad);
    return open(dataKey, iv, tag, data, ad).toString('utf8');
  } catch {
    throw new SecretDecryptError();
  } finally {
    dataKey?.fill(0);
  }
}
