/**
 * What a generated call said (the demo workspace and `npm run seed`): so that a call's detail page looks
 * like a real call, each generated call gets what the engine would have stored for it.
 *
 * - The transcript comes from a set of receptionist conversations (a dental and family clinic, the sample
 *   agent's job) chosen to fit the call's outcome: booked, rescheduled, a reminder confirmed, a voicemail
 *   left, transferred to a person, hung up early, silent caller; the turns are spread over the call's real
 *   duration. Calls that never connected have no words (there were none).
 * - Per agent turn, a latency split (speech recognition, end-of-turn wait, LLM, voice) around the call's
 *   typical latency (call-generator.ts responseLatency).
 * - Usage in the billing's units, a reference minute per minute of call (src/api/contract/pricing.ts), so
 *   the cost breakdown adds up to the call's total (the calls row is given that total).
 * - The post-call analysis (summary, sentiment, success) that fits the conversation.
 * - Recordings: synthesised tones, not voices (the caller's channel at 330 Hz, the agent's at 440 Hz, each
 *   sounding while that side speaks), for a few calls only; README says so.
 *
 * Deterministic: everything is drawn from a generator seeded by the call's id, so the calls themselves
 * (call-generator.ts) stay what they were.
 */
import type { CallAnalysis, CallUsage, TranscriptTurn, TurnLatency } from '@contract/call-runtime.js';
import { REFERENCE_LLM_TOKENS, REFERENCE_TTS_CHARACTERS, storedUsageCost } from '@contract/pricing.js';
import { wavHeader } from '../../voice/audio/wav.js';
import type { CallRow } from '../calls/index.js';
import { type Rng, responseLatency, seededRng } from './call-generator.js';

type Line = readonly ['user' | 'agent', string];

interface Script {
  lines: readonly Line[];
  summary: string;
  sentiment: NonNullable<CallAnalysis['sentiment']>;
}

const FIRST = [
  'Margaret',
  'Harold',
  'Dorothy',
  'Walter',
  'Evelyn',
  'Frank',
  'Ruth',
  'George',
  'Alice',
  'Arthur',
  'Helen',
  'Louis',
];
const LAST = ['Whitaker', 'Alvarez', 'Nguyen', 'Kowalski', 'Brennan', 'Okafor', 'Lindqvist', 'Moreau', 'Patel', 'Sullivan'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const TIMES = ['9:00 AM', '9:30 AM', '10:15 AM', '11:00 AM', '1:30 PM', '2:00 PM', '3:45 PM', '4:30 PM'];
const VISITS = ['a cleaning', 'a check-up', 'a follow-up visit', 'a filling', 'a consultation'];

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T;

interface Fill {
  name: string;
  day: string;
  other: string;
  time: string;
  visit: string;
}

type Kind = 'booked' | 'rescheduled' | 'reminder' | 'voicemail' | 'transfer' | 'hung_up' | 'silent' | 'error';

const SCRIPTS: Record<Kind, (f: Fill) => Script> = {
  booked: (f) => ({
    lines: [
      ['agent', 'Thank you for calling Parley Demo Clinic, this is the front desk. How can I help you today?'],
      ['user', `Hello, yes, I'd like to make an appointment for ${f.visit}.`],
      ['agent', 'Of course. May I have your full name, please?'],
      ['user', `It's ${f.name}.`],
      ['agent', `Thank you. I have openings on ${f.day} at ${f.time} or ${f.other} in the afternoon. Which suits you better?`],
      ['user', `${f.day} at ${f.time} is fine.`],
      [
        'agent',
        `You're booked for ${f.visit} on ${f.day} at ${f.time}. We'll send you a reminder the day before. Anything else?`,
      ],
      ['user', "No, that's all. Thank you, dear."],
      ['agent', 'You are very welcome. Have a lovely day!'],
    ],
    summary: `${f.name} called to book ${f.visit}; the agent booked ${f.day} at ${f.time} and promised a reminder the day before.`,
    sentiment: 'positive',
  }),
  rescheduled: (f) => ({
    lines: [
      ['agent', 'Thank you for calling Parley Demo Clinic. How can I help you today?'],
      ['user', `Hi, this is ${f.name}. I need to move my appointment on ${f.other}.`],
      ['agent', 'No problem. Could you tell me your date of birth so I can find it?'],
      ['user', "Sure, it's the fourth of May."],
      ['agent', `Thank you. I see ${f.visit} on ${f.other}. What day would work better?`],
      ['user', `Could I come on ${f.day} instead? Sometime in the morning.`],
      ['agent', `${f.day} at ${f.time} is free. Shall I move it there?`],
      ['user', 'Yes please.'],
      ['agent', `Done. Your appointment is now on ${f.day} at ${f.time}. Is there anything else I can do for you?`],
      ['user', 'No, thank you.'],
    ],
    summary: `${f.name} moved ${f.visit} from ${f.other} to ${f.day} at ${f.time}.`,
    sentiment: 'positive',
  }),
  reminder: (f) => ({
    lines: [
      [
        'agent',
        `Hello, this is Parley Demo Clinic calling for ${f.name}. I'm calling to remind you of ${f.visit} on ${f.day} at ${f.time}.`,
      ],
      ['user', 'Oh yes, thank you for calling.'],
      ['agent', 'Will you be able to make it?'],
      ['user', "Yes, I'll be there."],
      ['agent', 'Wonderful. Please bring your insurance card. See you then!'],
    ],
    summary: `Reminder call: ${f.name} confirmed ${f.visit} on ${f.day} at ${f.time}.`,
    sentiment: 'positive',
  }),
  voicemail: (f) => ({
    lines: [
      [
        'agent',
        `Hello, this is Parley Demo Clinic with a message for ${f.name}: a reminder of ${f.visit} on ${f.day} at ${f.time}. Please call us back if you need to change it. Thank you!`,
      ],
    ],
    summary: `Reached voicemail; left a reminder of ${f.visit} on ${f.day} at ${f.time}.`,
    sentiment: 'neutral',
  }),
  transfer: (f) => ({
    lines: [
      ['agent', 'Thank you for calling Parley Demo Clinic. How can I help you today?'],
      ['user', `This is ${f.name}. I have a question about my bill, I think I was charged twice.`],
      ['agent', "I'm sorry about that. Billing questions are handled by our office manager. May I transfer you?"],
      ['user', 'Yes, please.'],
      ['agent', 'One moment, I am connecting you now.'],
    ],
    summary: `${f.name} asked about a double charge on a bill; the agent transferred the call to the office manager.`,
    sentiment: 'neutral',
  }),
  hung_up: (f) => ({
    lines: [
      ['agent', 'Thank you for calling Parley Demo Clinic. How can I help you today?'],
      ['user', `Is this the pharmacy? I'm looking for my prescription for ${f.name}.`],
      ['agent', 'This is the dental and family clinic, not the pharmacy. Can I help you with an appointment?'],
      ['user', 'No, wrong number, sorry.'],
    ],
    summary: 'The caller had dialled the wrong number (looking for a pharmacy) and hung up.',
    sentiment: 'neutral',
  }),
  silent: () => ({
    lines: [
      ['agent', 'Thank you for calling Parley Demo Clinic. How can I help you today?'],
      ['agent', 'Hello? Are you still there?'],
      ['agent', "I can't hear anything, so I'll end the call now. Please call us again. Goodbye!"],
    ],
    summary: 'The caller did not speak; the agent ended the call after its reminders.',
    sentiment: 'neutral',
  }),
  error: () => ({
    lines: [['agent', 'Thank you for calling Parley Demo Clinic. How can I']],
    summary: 'The call ended on an error before the conversation started.',
    sentiment: 'neutral',
  }),
};

/** Which conversation fits a generated call (null: the call never connected, nothing was said). */
function kindOf(row: CallRow, rng: Rng): Kind | null {
  switch (row.disconnection_reason) {
    case 'voicemail_reached':
      return 'voicemail';
    case 'call_transfer':
      return 'transfer';
    case 'inactivity':
      return 'silent';
    case 'error_unknown':
      return row.duration > 0 ? 'error' : null;
    case 'user_hangup':
    case 'agent_hangup':
    case 'max_duration_reached':
      if (row.status === 'canceled') return null;
      if (Number(row.call_successful) !== 1) return 'hung_up';
      if (row.type === 'outbound') return 'reminder';
      return rng() < 0.7 ? 'booked' : 'rescheduled';
    default:
      return null;
  }
}

/** A generator seeded by the call's id (FNV-1a), independent of the one that made the calls. */
function rngOf(id: string): Rng {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return seededRng(h >>> 0);
}

/** The lines spread over the call: each turn's share of the time in proportion to its words. */
function timedTurns(lines: readonly Line[], durationMs: number): TranscriptTurn[] {
  const words = lines.map(([, text]) => Math.max(1, text.split(/\s+/).length));
  const total = words.reduce((a, b) => a + b, 0);
  // about 70% of the call is speech, the rest pauses between turns
  const gap = (durationMs * 0.3) / (lines.length + 1);
  let at = gap;
  return lines.map(([role, text], i) => {
    const span = (durationMs * 0.7 * (words[i] as number)) / total;
    const turn = { role, text, start_ms: Math.round(at), end_ms: Math.round(at + span) };
    at += span + gap;
    return turn;
  });
}

/** Each agent turn that answers the caller: the time from the caller's last word to the agent's first audio. */
function latencies(turns: TranscriptTurn[], typicalMs: number, rng: Rng): TurnLatency[] {
  const out: TurnLatency[] = [];
  turns.forEach((t, i) => {
    if (t.role !== 'agent' || turns[i - 1]?.role !== 'user') return;
    const total = Math.round(typicalMs * (0.8 + 0.4 * rng()));
    const stt = Math.round(total * 0.28);
    const wait = Math.round(total * 0.22);
    const tts = Math.round(total * 0.12);
    out.push({ turn: i, total_ms: total, stt_ms: stt, wait_ms: wait, llm_ms: total - stt - wait - tts, tts_ms: tts });
  });
  return out;
}

/** A reference minute of usage per minute of call (pricing.ts), so the parts add up to what the call cost. */
function usageOf(row: CallRow, turns: TranscriptTurn[], model: string): CallUsage {
  const minutes = row.duration / 60;
  const tokens = Math.round(REFERENCE_LLM_TOKENS * minutes);
  const spoken = turns.filter((t) => t.role === 'agent').reduce((n, t) => n + t.text.length, 0);
  return {
    stt_seconds: row.duration,
    llm_input_tokens: Math.round(tokens * 0.85),
    llm_output_tokens: tokens - Math.round(tokens * 0.85),
    tts_characters: Math.max(spoken, Math.round(REFERENCE_TTS_CHARACTERS * minutes)),
    telephony_minutes: Math.round(minutes * 10_000) / 10_000,
    llm_model: model,
    stt_provider: 'deepgram',
    tts_provider: 'elevenlabs',
  };
}

export interface DemoConversation {
  transcript: TranscriptTurn[];
  latency: TurnLatency[];
  usage: CallUsage;
  /** what the call cost: the usage's total (the calls row is given it) */
  cost: number;
  analysis: CallAnalysis | null;
}

/** What a generated call said and cost (nothing said when it never connected), or null while it is still on the line. */
export function demoConversation(row: CallRow, model: string): DemoConversation | null {
  if (row.status === 'ongoing') return null;
  const rng = rngOf(row.id);
  const kind = kindOf(row, rng);
  const durationMs = row.duration * 1000;
  const fill: Fill = {
    name: `${pick(rng, FIRST)} ${pick(rng, LAST)}`,
    day: pick(rng, DAYS),
    other: pick(rng, DAYS),
    time: pick(rng, TIMES),
    visit: pick(rng, VISITS),
  };
  if (fill.other === fill.day) fill.other = DAYS[(DAYS.indexOf(fill.day) + 2) % DAYS.length] as string;
  const script = kind ? SCRIPTS[kind](fill) : null;
  const transcript = script && durationMs > 0 ? timedTurns(script.lines, durationMs) : [];
  const usage = usageOf(row, transcript, model);
  const cost = storedUsageCost(usage).total;
  return {
    transcript,
    latency: latencies(transcript, row.latency_ms ?? responseLatency(Date.parse(row.time)), rng),
    usage,
    cost,
    analysis:
      script && transcript.length > 0
        ? {
            status: 'done',
            summary: script.summary,
            sentiment: script.sentiment,
            successful: Number(row.call_successful) === 1,
            custom: {},
            error: null,
          }
        : null,
  };
}

const RECORDING_RATE = 8000;
/** a recording is at most this long (the tones are the same all through) */
const RECORDING_MAX_MS = 45_000;

/**
 * A stereo 16-bit WAV of the call in the recorder's layout (caller on the left, agent on the right):
 * synthesised tones, not voices, sounding while each side speaks, softly faded in and out.
 */
export function demoRecording(transcript: readonly TranscriptTurn[]): Uint8Array {
  const endMs = Math.min(RECORDING_MAX_MS, Math.max(1000, ...transcript.map((t) => t.end_ms)));
  const frames = Math.round((endMs / 1000) * RECORDING_RATE);
  const data = Buffer.alloc(frames * 4);
  for (const t of transcript) {
    const channel = t.role === 'user' ? 0 : 1;
    const hz = t.role === 'user' ? 330 : 440;
    const from = Math.round((t.start_ms / 1000) * RECORDING_RATE);
    const to = Math.min(frames, Math.round((t.end_ms / 1000) * RECORDING_RATE));
    for (let i = from; i < to; i++) {
      const edge = Math.min(1, (i - from) / 400, (to - i) / 400);
      // a syllable-like swell, four a second
      const swell = 0.55 + 0.45 * Math.sin((2 * Math.PI * 4 * i) / RECORDING_RATE);
      const sample = Math.round(6000 * edge * swell * Math.sin((2 * Math.PI * hz * i) / RECORDING_RATE));
      data.writeInt16LE(sample, i * 4 + channel * 2);
    }
  }
  return Buffer.concat([wavHeader(data.length, RECORDING_RATE, 2), data]);
}
