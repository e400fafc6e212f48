import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ACCOUNT_MESSAGES as M } from '@contract/account.js';
import { HttpError } from '../../platform/http/http.js';
import { isCommonPassword, SERVER_BUSY_MSG } from './passwords.js';

/**
 * Password strength, the way zxcvbn estimates it (@zxcvbn-ts with its common and English dictionaries):
 * the number of guesses an attacker who knows common passwords, words, names, dates, keyboard patterns
 * and the user's own name and email would need, as a score from 0 to 4. New passwords need
 * STRENGTH_MIN_SCORE.
 *
 * zxcvbn is not cheap: its matching grows faster than the length of the password (tens to hundreds of
 * milliseconds for 30-60 characters), and its dictionaries are several megabytes. Neither belongs on the
 * event loop that carries live audio, nor in the browser: the estimate runs in one worker thread,
 * started (and its dictionaries loaded) on the first check, then kept. Only the first
 * STRENGTH_MAX_LENGTH characters are assessed, a check that takes longer than STRENGTH_TIMEOUT_MS ends
 * the worker (the next check starts another), and at most STRENGTH_QUEUE_MAX checks wait (then 503).
 */
export const STRENGTH_MIN_SCORE = 3;
export const STRENGTH_MAX_LENGTH = 64;
export const STRENGTH_TIMEOUT_MS = 10_000;
export const STRENGTH_QUEUE_MAX = 100;

/** The worker's code (plain CommonJS, so it runs the same from the sources under tsx or vitest and from the bundle). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { ZxcvbnFactory } = require(workerData.core);
const common = require(workerData.common);
const en = require(workerData.en);
const zxcvbn = new ZxcvbnFactory({
  dictionary: { ...common.dictionary, ...en.dictionary },
  graphs: common.adjacencyGraphs,
  translations: en.translations,
  maxLength: workerData.maxLength,
});
parentPort.on('message', ({ id, password, userInputs }) => {
  try {
    parentPort.postMessage({ id, score: zxcvbn.check(password, userInputs).score });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

interface Pending {
  resolve(score: number): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

const busy = () => new HttpError(503, SERVER_BUSY_MSG, undefined, { 'Retry-After': '1' });

function stopWorker(reason: Error) {
  const w = worker;
  worker = undefined;
  for (const [id, p] of pending) {
    clearTimeout(p.timer);
    p.reject(reason);
    pending.delete(id);
  }
  if (w) void w.terminate();
}

function startWorker(): Worker {
  const require = createRequire(import.meta.url);
  const w = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      core: require.resolve('@zxcvbn-ts/core'),
      common: require.resolve('@zxcvbn-ts/language-common'),
      en: require.resolve('@zxcvbn-ts/language-en'),
      maxLength: STRENGTH_MAX_LENGTH,
    },
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  w.on('message', (m: { id: number; score?: number; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) w.unref();
    clearTimeout(p.timer);
    if (typeof m.score === 'number') p.resolve(m.score);
    else p.reject(new Error(m.error ?? 'password strength check failed'));
  });
  w.on('error', (e) => {
    if (worker === w) stopWorker(e);
  });
  w.on('exit', () => {
    if (worker === w) stopWorker(new Error('the password strength worker stopped'));
  });
  // an idle worker never keeps the process alive (unref'd after the listeners: attaching one refs it)
  w.unref();
  return w;
}

/** zxcvbn's score (0 to 4) of `password` for a user described by `userInputs` (name, email...). */
export function passwordScore(password: string, userInputs: string[]): Promise<number> {
  if (pending.size >= STRENGTH_QUEUE_MAX) return Promise.reject(busy());
  worker ??= startWorker();
  const w = worker;
  const id = nextId++;
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (worker === w) stopWorker(busy());
    }, STRENGTH_TIMEOUT_MS);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    w.ref();
    w.postMessage({ id, password: password.slice(0, STRENGTH_MAX_LENGTH), userInputs });
  });
}

/** What zxcvbn should know about the user: the product, the name and email and their parts. */
export function userInputsOf(user: { name?: string | undefined; email?: string | undefined }): string[] {
  const words = [user.name, user.email, user.email?.split('@')[0]].filter((s): s is string => !!s);
  const parts = words.flatMap((w) => w.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((p) => p.length >= 3);
  return [...new Set(['parley', ...words.map((w) => w.toLowerCase()), ...parts])];
}

/**
 * Why a new password is refused, or null when it is accepted: on the list of the most common passwords
 * ('This password is too common'), else too easy to guess for zxcvbn. The length rules come first, from
 * the contract's schema ('Password must be at least 6 characters').
 */
export async function passwordWeakness(
  password: string,
  user: { name?: string | undefined; email?: string | undefined },
): Promise<string | null> {
  if (isCommonPassword(password)) return M.passwordTooCommon;
  return (await passwordScore(password, userInputsOf(user))) < STRENGTH_MIN_SCORE ? M.passwordTooWeak : null;
}
