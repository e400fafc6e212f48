import { randomBytes } from 'node:crypto';

let counter = randomBytes(3).readUIntBE(0, 3);
const machine = randomBytes(5).toString('hex');

/** A 24-hex id ordered by creation time (ObjectId layout: 4-byte seconds, 5 random bytes, 3-byte counter). */
export function newId(now: Date = new Date()): string {
  counter = (counter + 1) % 0xffffff;
  const secs = Math.floor(now.getTime() / 1000)
    .toString(16)
    .padStart(8, '0');
  return secs + machine + counter.toString(16).padStart(6, '0');
}

export const isId = (s: string) => /^[0-9a-f]{24}$/.test(s);
