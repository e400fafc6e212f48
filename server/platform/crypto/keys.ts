import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Secrets } from '../deps.js';

/** Reads a 32-byte key file, creating it (mode 0600) on first start. */
export function loadOrCreateKey(file: string): Uint8Array {
  if (fs.existsSync(file)) {
    const hex = fs.readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`Key file ${file} is not 64 hex characters`);
    return Buffer.from(hex, 'hex');
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  return key;
}

export function loadSecrets(dataDir: string, env: { JWT_SECRET?: string | undefined; MASTER_KEY?: string | undefined }): Secrets {
  const jwtKey = env.JWT_SECRET
    ? new Uint8Array(Buffer.from(env.JWT_SECRET, 'utf8')).slice(0, Math.max(32, env.JWT_SECRET.length))
    : loadOrCreateKey(path.join(dataDir, 'keys', 'jwt.key'));
  const masterKey = env.MASTER_KEY
    ? new Uint8Array(Buffer.from(env.MASTER_KEY, 'hex'))
    : loadOrCreateKey(path.join(dataDir, 'keys', 'master.key'));
  return { jwtKey, masterKey };
}
