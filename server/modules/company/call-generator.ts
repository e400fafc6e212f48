import { AGENT_DIALOG_DEFAULTS } from '@contract/agent/defaults.js';
import type { DisconnectionReason } from '@contract/call.js';
import type { CallStatus, CallType } from '@contract/call-values.js';
import { newId } from '../../platform/crypto/ids.js';
import type { CallRow } from '../calls/index.js';

/**
 * Realistic call records for the seed command and the demo workspace. Deterministic for a given seed.
 *
 * - Volume: spread over the days of [start, end) by weekday (Monday busiest, Sunday quietest) with
 *   ±15% day-to-day noise and a slight growth over the period; within a day by hour of day (a morning
 *   peak at 10:00 and an afternoon one at 14:00, little at night). Hours are UTC: companies have no
 *   time zone yet. The total is exactly `count`.
 * - Direction: 62% inbound (patients calling the practice), 38% outbound (reminders, follow-ups).
 * - Outcomes, with the status and disconnection reason real voice platforms report:
 *   inbound: connected 96.5% (user_hangup, agent_hangup, call_transfer, inactivity), canceled before
 *   pick-up 2%, platform error 1.5%;
 *   outbound: connected 62% (the same reasons plus voicemail_reached 16% of them), dial_no_answer 18%,
 *   dial_busy 7%, dial_failed 5%, invalid_destination 2%, canceled 3%, error 3%.
 *   A connected call is 'completed' when the agent reached the call's goal (callSuccessful), otherwise
 *   'ended'. Calls still running at `end` are 'ongoing' with no reason yet.
 * - Durations: log-normal per reason (median 2 to 4 minutes, voicemail about 25 s); a call reaching the
 *   default max call duration (1,242 s) ends with max_duration_reached. Unconnected calls last 0 s.
 * - Cost: minutes x the line agent's price per minute (model price + voice and telephony, see
 *   agentCostPerMinute), rounded to 1/10,000 USD.
 * - Numbers: each call uses one of the company's lines (its `phone_number`); callers and callees come
 *   from a pool of fictional 555 numbers, a few of them calling often.
 */

export type Rng = () => number;

/** A small fast seeded generator (mulberry32): the same seed gives the same calls. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A line of the company: one of its numbers and the agent answering it. */
export interface CallLine {
  phone: string;
  agentId: string | null;
  /** USD per minute of the agent (agentCostPerMinute of its model) */
  costPerMinute: number;
}

export interface GenerateCallsOptions {
  companyId: string;
  lines: readonly CallLine[];
  count: number;
  start: Date;
  end: Date;
  rng: Rng;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Sunday .. Saturday */
const WEEKDAY_WEIGHTS = [0.25, 1.15, 1.05, 1, 1, 0.9, 0.4];
const HOUR_WEIGHTS = [
  0.1, 0.05, 0.05, 0.05, 0.05, 0.1, 0.3, 0.8, 2, 3.2, 3.6, 3.4, 2.6, 3, 3.3, 3.1, 2.6, 1.8, 1.1, 0.7, 0.5, 0.35, 0.25, 0.15,
];
export const MAX_CALL_SECONDS = AGENT_DIALOG_DEFAULTS.max_call_duration_ms / 1000;
/** Area codes of the fictional 555 numbers (callers, callees and the pool). */
export const AREA_CODES = [
  212, 213, 206, 303, 305, 312, 404, 415, 469, 503, 512, 602, 617, 646, 702, 713, 718, 720, 773, 818, 858, 919,
];
export const TOLL_FREE_CODES = [800, 833, 844, 855, 866, 877, 888];

type Weighted<T> = readonly (readonly [T, number])[];
/** Draws values with probability proportional to their weights. */
function sampler<T>(table: Weighted<T>): (rng: Rng) => T {
  const cumulative: number[] = [];
  let total = 0;
  for (const [, w] of table) {
    total += w;
    cumulative.push(total);
  }
  return (rng) => {
    const x = rng() * total;
    let i = 0;
    while (i < cumulative.length - 1 && cumulative[i]! <= x) i++;
    return table[i]![0];
  };
}

/** A standard normal deviate (Box-Muller). */
const gauss = (rng: Rng) => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const logNormal = (rng: Rng, median: number, sigma: number) => median * Math.exp(sigma * gauss(rng));

type Outcome = 'connected' | 'canceled' | 'error' | 'dial_no_answer' | 'dial_busy' | 'dial_failed' | 'invalid_destination';
const inboundOutcome = sampler<Outcome>([
  ['connected', 96.5],
  ['canceled', 2],
  ['error', 1.5],
]);
const outboundOutcome = sampler<Outcome>([
  ['connected', 62],
  ['dial_no_answer', 18],
  ['dial_busy', 7],
  ['dial_failed', 5],
  ['invalid_destination', 2],
  ['canceled', 3],
  ['error', 3],
]);
type Ending = 'user_hangup' | 'agent_hangup' | 'call_transfer' | 'inactivity' | 'voicemail_reached';
const inboundEnding = sampler<Ending>([
  ['user_hangup', 52],
  ['agent_hangup', 30],
  ['call_transfer', 12],
  ['inactivity', 6],
]);
const outboundEnding = sampler<Ending>([
  ['user_hangup', 40],
  ['agent_hangup', 28],
  ['voicemail_reached', 16],
  ['call_transfer', 9],
  ['inactivity', 7],
]);
/** median seconds, log-normal sigma and the chance the agent reached the call's goal */
const ENDING_PROFILE: Record<Ending | 'max_duration_reached', { median: number; sigma: number; success: number }> = {
  user_hangup: { median: 140, sigma: 0.75, success: 0.62 },
  agent_hangup: { median: 200, sigma: 0.6, success: 0.86 },
  call_transfer: { median: 95, sigma: 0.55, success: 0.9 },
  inactivity: { median: 230, sigma: 0.5, success: 0.08 },
  voicemail_reached: { median: 26, sigma: 0.3, success: 0.35 },
  max_duration_reached: { median: MAX_CALL_SECONDS, sigma: 0, success: 0.4 },
};
const UNCONNECTED: Record<Exclude<Outcome, 'connected'>, { status: CallStatus; reason: DisconnectionReason }> = {
  canceled: { status: 'canceled', reason: 'user_hangup' },
  error: { status: 'error', reason: 'error_unknown' },
  dial_no_answer: { status: 'no-answer', reason: 'dial_no_answer' },
  dial_busy: { status: 'busy', reason: 'dial_busy' },
  dial_failed: { status: 'failed', reason: 'dial_failed' },
  invalid_destination: { status: 'failed', reason: 'invalid_destination' },
};

/** A fictional 555 number: +1 AAA 555 XXXX. */
export const fictionalNumber = (areaCode: number, line: number) => `+1${areaCode}555${String(line % 10_000).padStart(4, '0')}`;

/** How many calls fall on each day of [start, end): by weekday, noise and growth, summing to `count`. */
function callsPerDay(opts: GenerateCallsOptions): { dayStart: number; calls: number }[] {
  const first = Math.floor(opts.start.getTime() / DAY) * DAY;
  const days: { dayStart: number; weight: number }[] = [];
  const span = Math.max(1, opts.end.getTime() - first);
  for (let d = first; d < opts.end.getTime(); d += DAY) {
    // the share of the day's hour weights inside [start, end)
    let share = 0;
    for (let h = 0; h < 24; h++) {
      const from = Math.max(d + h * HOUR, opts.start.getTime());
      const to = Math.min(d + (h + 1) * HOUR, opts.end.getTime());
      if (to > from) share += HOUR_WEIGHTS[h]! * ((to - from) / HOUR);
    }
    const growth = 0.85 + 0.3 * ((d - first) / span);
    const noise = 0.85 + 0.3 * opts.rng();
    days.push({ dayStart: d, weight: share * WEEKDAY_WEIGHTS[new Date(d).getUTCDay()]! * growth * noise });
  }
  const total = days.reduce((s, d) => s + d.weight, 0) || 1;
  let cumulative = 0;
  let given = 0;
  return days.map((d) => {
    cumulative += d.weight;
    const upTo = Math.round((cumulative / total) * opts.count);
    const calls = upTo - given;
    given = upTo;
    return { dayStart: d.dayStart, calls };
  });
}

/** `n` start times within the day, inside [start, end), ascending. */
function timesOfDay(opts: GenerateCallsOptions, dayStart: number, n: number): number[] {
  const lo = Math.max(dayStart, opts.start.getTime());
  const hi = Math.min(dayStart + DAY, opts.end.getTime());
  const hour = sampler(
    HOUR_WEIGHTS.map((w, h) => {
      const from = Math.max(dayStart + h * HOUR, lo);
      const to = Math.min(dayStart + (h + 1) * HOUR, hi);
      return [h, to > from ? w * ((to - from) / HOUR) : 0] as const;
    }),
  );
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const h = hour(opts.rng);
    const from = Math.max(dayStart + h * HOUR, lo);
    const to = Math.min(dayStart + (h + 1) * HOUR, hi);
    out.push(Math.floor(from + opts.rng() * (to - from)));
  }
  return out.sort((a, b) => a - b);
}

/**
 * A connected call's typical response latency (ms): log-normal around 800 ms, derived from its start time
 * by a hash rather than drawn from the generator's stream, so the calls themselves stay what they were.
 */
export function responseLatency(t: number): number {
  const hash = (x: number) => ((Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) ^ Math.imul(x >>> 7, 0x297a2d39)) >>> 0) / 2 ** 32;
  const u1 = Math.max(hash(t | 0), 1e-9);
  const u2 = hash((t / 1000) | 0);
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.round(800 * Math.exp(0.3 * z));
}

/**
 * The calls, in chronological order, one array per day (so a caller can insert them in batches and
 * report progress).
 */
export function* generateCalls(opts: GenerateCallsOptions): Generator<CallRow[]> {
  if (opts.lines.length === 0) throw new Error('generateCalls: the company needs at least one phone number');
  const { rng } = opts;
  const end = opts.end.getTime();
  // callers: a pool about an eighth of the calls, skewed so some people call often
  const people = Math.max(50, Math.min(AREA_CODES.length * 10_000, Math.ceil(opts.count / 8)));
  const person = () => {
    const i = Math.floor(people * rng() ** 2);
    return fictionalNumber(AREA_CODES[i % AREA_CODES.length]!, Math.floor(i / AREA_CODES.length));
  };
  // the first lines carry more traffic
  const line = sampler(opts.lines.map((l, i) => [l, 1 / (1 + i * 0.5)] as const));

  for (const { dayStart, calls } of callsPerDay(opts)) {
    const rows: CallRow[] = [];
    for (const t of timesOfDay(opts, dayStart, calls)) {
      const { phone, agentId, costPerMinute } = line(rng);
      const type: CallType = rng() < 0.62 ? 'inbound' : 'outbound';
      const outcome = type === 'inbound' ? inboundOutcome(rng) : outboundOutcome(rng);
      let status: CallStatus;
      let reason: DisconnectionReason | '';
      let duration: number;
      let success = false;
      if (outcome === 'connected') {
        let ending: Ending | 'max_duration_reached' = type === 'inbound' ? inboundEnding(rng) : outboundEnding(rng);
        const profile = ENDING_PROFILE[ending];
        duration = Math.max(3, Math.round(logNormal(rng, profile.median, profile.sigma)));
        if (duration >= MAX_CALL_SECONDS) {
          duration = MAX_CALL_SECONDS;
          ending = 'max_duration_reached';
        }
        success = rng() < ENDING_PROFILE[ending].success;
        status = success ? 'completed' : 'ended';
        reason = ending;
      } else {
        ({ status, reason } = UNCONNECTED[outcome]);
        duration = outcome === 'canceled' ? Math.floor(rng() * 5) : outcome === 'error' ? Math.floor(rng() * 60) : 0;
      }
      if (t + duration * 1000 > end) {
        // still on the line at the end of the period
        duration = Math.floor((end - t) / 1000);
        status = 'ongoing';
        reason = '';
        success = false;
      }
      const time = new Date(t);
      const other = person();
      rows.push({
        id: newId(time),
        company_id: opts.companyId,
        agent_id: agentId,
        time: time.toISOString(),
        from_number: type === 'inbound' ? other : phone,
        to_number: type === 'inbound' ? phone : other,
        phone_number: phone,
        duration,
        type,
        cost: Math.round((duration / 60) * costPerMinute * 10_000) / 10_000,
        disconnection_reason: reason,
        status,
        call_successful: success ? 1 : 0,
        latency_ms: outcome === 'connected' ? responseLatency(t) : null,
      });
    }
    yield rows;
  }
}
