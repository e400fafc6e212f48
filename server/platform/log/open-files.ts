/**
 * The number of files (sockets included) the server may hold open at once, checked at start (server/main.ts).
 *
 * Every live call holds several descriptors for its whole length: the caller's socket (browser or carrier
 * stream), the speech-to-text stream, the LLM request, up to four voice streams (three sentences synthesised
 * at once and the next one opened ahead) and its recording file; each chat reply and each HTTP request hold
 * one more. A server that runs out answers EMFILE and the calls of every company fail with it, so a server
 * that may open fewer than MIN_OPEN_FILES refuses to start and says how to raise the limit.
 *
 * Node raises its own soft limit to the hard limit at start, so what is read here is what the process has.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** The fewest open files the server starts with, unless MIN_OPEN_FILES says otherwise (0: no check). */
export const MIN_OPEN_FILES = 4096;

/** The soft limit of `Max open files` in a /proc/<pid>/limits text; Infinity when unlimited. */
export function parseOpenFilesLimit(limits: string): number | undefined {
  const m = /^Max open files\s+(\S+)/m.exec(limits);
  if (!m?.[1]) return undefined;
  return parseUlimit(m[1]);
}

const parseUlimit = (value: string): number | undefined => {
  const v = value.trim();
  if (v === 'unlimited') return Number.POSITIVE_INFINITY;
  return /^\d+$/.test(v) ? Number(v) : undefined;
};

/** This process's limit on open files: /proc/self/limits (Linux), else `ulimit -n` in a shell; undefined when unknown. */
export function openFilesLimit(): number | undefined {
  try {
    return parseOpenFilesLimit(fs.readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    try {
      return parseUlimit(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000 }));
    } catch {
      return undefined;
    }
  }
}

/** Why the server cannot start with `limit` open files, or undefined when it can (or the limit is unknown). */
export function openFilesProblem(limit: number | undefined, min: number = MIN_OPEN_FILES): string | undefined {
  if (limit === undefined || min <= 0 || limit >= min) return undefined;
  return (
    `This server may open only ${limit} files at once (ulimit -n), fewer than the ${min} Parley needs: each live ` +
    'call holds about eight (its socket, the speech, LLM and voice streams, its recording). Raise the limit ' +
    `(ulimit -n 65536 in the shell that starts it, LimitNOFILE=65536 under systemd, --ulimit nofile=65536 with Docker), ` +
    'or set MIN_OPEN_FILES to a lower number (0 turns the check off).'
  );
}
