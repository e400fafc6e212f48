import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hash, parseOptions, verify } from '@node-rs/argon2';
import { HttpError } from '../../platform/http/http.js';
import { concurrencyLimit } from '../../platform/jobs/concurrency.js';

/**
 * Password hashing policy: argon2id, m=19456 KiB, t=2, p=1 (OWASP's first recommended setting).
 * Numeric values of @node-rs/argon2's const enums (ambient const enums cannot be read under
 * isolatedModules): Algorithm.Argon2id = 2, Version.V0x13 = 1.
 */
export const ARGON2_POLICY = { algorithm: 2, version: 1, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * Argon2 computations at once: one core fewer than the machine has (at least 1, at most 4). Each takes
 * 19 MiB and a core for tens of milliseconds on libuv's thread pool (4 threads), which every other
 * route needs too (WebCrypto verifies the JWTs there): unbounded, a flood of logins fills the pool and
 * the memory, and every route waits behind it (bench/load.ts measured p99 over 2 s with 200 concurrent
 * wrong-password logins). The rest wait in a queue of HASHING_QUEUE_MAX; beyond it, 503 at once.
 */
export const HASHING_CONCURRENCY = Math.max(1, Math.min(4, os.availableParallelism() - 1));
export const HASHING_QUEUE_MAX = 100;
export const SERVER_BUSY_MSG = 'The server is busy. Please try again in a moment.';
export const hashing = concurrencyLimit({
  max: HASHING_CONCURRENCY,
  queueMax: HASHING_QUEUE_MAX,
  onFull: () => new HttpError(503, SERVER_BUSY_MSG, undefined, { 'Retry-After': '1' }),
});

export function hashPassword(password: string): Promise<string> {
  return hashing.run(() =>
    hash(password, {
      algorithm: ARGON2_POLICY.algorithm as 2,
      version: ARGON2_POLICY.version as 1,
      memoryCost: ARGON2_POLICY.memoryCost,
      timeCost: ARGON2_POLICY.timeCost,
      parallelism: ARGON2_POLICY.parallelism,
    }),
  );
}

/** Verifies a password against a PHC string. A malformed hash counts as a mismatch. */
export function verifyPassword(phc: string, password: string): Promise<boolean> {
  return hashing.run(async () => {
    try {
      return await verify(phc, password);
    } catch {
      return false;
    }
  });
}

/** True when the stored hash was made with other parameters than today's policy (upgrade it at login). */
export function needsRehash(phc: string): boolean {
  try {
    const p = parseOptions(phc);
    return (
      (p.algorithm as number) !== ARGON2_POLICY.algorithm ||
      (p.version as number) !== ARGON2_POLICY.version ||
      p.memoryCost !== ARGON2_POLICY.memoryCost ||
      p.timeCost !== ARGON2_POLICY.timeCost ||
      p.parallelism !== ARGON2_POLICY.parallelism
    );
  } catch {
    return true;
  }
}

let dummy: Promise<string> | undefined;
/**
 * A hash of a random password with the current policy. Login verifies against it when the email is
 * unknown, so unknown and known emails cost the same time.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummy;
}

let common: Set<string> | undefined;
/** The list ships as server/modules/auth/common-passwords.txt (found beside this module or from dist/server). */
function commonPasswords(): Set<string> {
  if (common) return common;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.join(here, 'common-passwords.txt'),
    // bundled: dist/server/main.js -> <repo>/server/modules/auth
    path.resolve(here, '../../server/modules/auth/common-passwords.txt'),
  ];
  const file = candidates.find((f) => fs.existsSync(f));
  if (!file) throw new Error(`common-passwords.txt not found (looked in ${candidates.join(', ')})`);
  common = new Set(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean),
  );
  return common;
}

/** Case-insensitive match against the list of the most common passwords. */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.trim().toLowerCase());
}
