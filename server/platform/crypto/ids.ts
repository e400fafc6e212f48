import { randomBytes } from 'node:crypto';

/**
 * Row ids: 24 lowercase hex characters, ordered by creation time and unguessable.
 *
 *   sssssssss mmm rrrrrrrrrrrrr
 *   8 hex: seconds since 1970 · 3 hex: milliseconds (000-3e7) · 13 hex: 52 random bits
 *
 * - Time first, so ids sort by creation time to the millisecond on both databases (lists use the id to
 *   break ties of equal timestamps), and they sort after the ids of the first format (ObjectId layout:
 *   seconds, then a per-process value and a counter), which existing rows keep.
 * - No counter: the random part comes from the operating system's CSPRNG for every new millisecond, so an
 *   id says nothing about how many objects other companies created. Within one millisecond of one process
 *   the random part grows by a random step of 1 to 2^32 (the first one starts in the lower half of the
 *   52-bit range), so ids made in order stay in order (tests run on a fixed clock); two ids of one caller
 *   in the same millisecond are the only ones whose distance says anything, and only roughly.
 * The format is the one `isId` and the contract (24 hex characters) always accepted.
 */
const RANDOM_HEX = 13;
const RANDOM_MAX = 1n << 52n;

let lastTime = '';
let lastRandom = 0n;

const randomBits = (bits: number) => BigInt(`0x${randomBytes(8).toString('hex')}`) & ((1n << BigInt(bits)) - 1n);

export function newId(now: Date = new Date()): string {
  const ms = now.getTime();
  const time =
    Math.floor(ms / 1000)
      .toString(16)
      .padStart(8, '0') + (((ms % 1000) + 1000) % 1000).toString(16).padStart(3, '0');
  let random = time === lastTime ? lastRandom + 1n + randomBits(32) : randomBits(51);
  // more than 2^19 ids in one millisecond: order within it is given up rather than the format
  if (random >= RANDOM_MAX) random = randomBits(51);
  lastTime = time;
  lastRandom = random;
  return time + random.toString(16).padStart(RANDOM_HEX, '0');
}

export const isId = (s: string) => /^[0-9a-f]{24}$/.test(s);
