/**
 * The provider fakes of tests/fakes (Deepgram, OpenAI, Anthropic, ElevenLabs, Cartesia, Twilio, Cal.com) for the e2e server:
 * started by global-setup on 127.0.0.1, their base URLs handed to the server through the same environment
 * variables production uses (OPENAI_BASE_URL, ...), their keys provided to the tests (`inject('fakeKeys')`),
 * which connect them on the Providers screen's API like a tester would.
 *
 * The script is fixed for the whole run (the tests run in other processes):
 * - the caller's words, one per stretch of speech the Deepgram fake hears (the fake microphone's WAV loops);
 * - OpenAI answers `Happy to help. You said: <the last thing said>.` (its final stop dropped), and calls `end_call` when the caller
 *   says goodbye, and `Your name is <X>.` to 'What is my name?' when the system prompt says `Caller name: X`;
 *   asked to 'check availability' by an agent offering `check_availability`, it calls that function with
 *   `{"date":"2026-12-08"}`, and after a function's result it answers `The function answered: <result>`.
 *   Asked to 'book' by an agent offering `check_slots` and `book_slot` (a Cal.com pair), it first calls
 *   `check_slots` with `{"start_date": <booking day>}`, then, given its result, `book_slot` at the first free
 *   time for BOOKING_ATTENDEE, then answers from the booking's result as above.
 * - Cal.com: the fake of tests/fakes/calcom.ts (CAL_API_URL) with event type CAL_EVENT_TYPE_ID free at
 *   09:00 and 10:30 UTC on the booking day (tomorrow in UTC when the fakes start; `fakeKeys.bookingDay`).
 * - ALLOW_PRIVATE_TOOL_URLS: a custom function or an MCP server may be one the test runs on 127.0.0.1.
 */
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { CalcomFake } from '../fakes/calcom.js';
import { CartesiaFake } from '../fakes/cartesia.js';
import { DeepgramFake } from '../fakes/deepgram.js';
import { ElevenLabsFake } from '../fakes/elevenlabs.js';
import { type FakeOpenAi, startFakeOpenAi } from '../fakes/openai.js';
import { TwilioFake } from '../fakes/twilio.js';

export const CALLER_WORDS = 'I would like to book a cleaning.';
/** numbers on the fake Twilio account, listed by 'Import from Twilio' */
export const TWILIO_ACCOUNT_NUMBERS = [
  { phone: '+13125550190', name: 'Front desk', voice: true },
  { phone: '+13125550191', name: 'Fax line', voice: false },
  { phone: '+13125550192', name: 'Nurse line', voice: true },
] as const;

/** The Cal.com fake's one event type, and the day it has free times (tomorrow in UTC at start). */
export const CAL_EVENT_TYPE_ID = 4242;
export const bookingDay = (now = Date.now()) => new Date(now + 86_400_000).toISOString().slice(0, 10);
/** who the fake model books for */
export const BOOKING_ATTENDEE = { name: 'Pat Lee', email: 'pat.lee@example.com' };

export interface FakeKeys {
  deepgram: string;
  openai: string;
  anthropic: string;
  elevenlabs: string;
  cartesia: string;
  /** the fake Cal.com's API key (Providers > Cal.com) */
  calcom: string;
  /** BOOKING_DAY of the run: the day the fake Cal.com has free times */
  bookingDay: string;
  /** the fake Twilio's Account SID and Auth Token (Providers > Twilio) */
  twilio: { accountSid: string; authToken: string };
}

export interface ProviderFakes {
  env: Record<string, string>;
  keys: FakeKeys;
  close(): Promise<void>;
}

/** The text of the last user message of a Chat Completions body. */
function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  if (Array.isArray(last.content))
    return last.content.map((p: { text?: string }) => (typeof p.text === 'string' ? p.text : '')).join(' ');
  return '';
}

/** The name of the function a tool message answers (from the assistant message that called it). */
function toolNameOf(messages: { role: string; tool_call_id?: string; tool_calls?: unknown }[], id: string | undefined): string {
  for (const m of messages) {
    const calls = (m.tool_calls ?? []) as { id?: string; function?: { name?: string } }[];
    const call = calls.find((c) => c.id === id);
    if (call) return call.function?.name ?? '';
  }
  return '';
}

/** The first free time of a Cal.com availability result (`free: {date: [HH:mm]}`) as YYYY-MM-DDTHH:mm. */
function firstFreeTime(result: string): string | undefined {
  try {
    const free = (JSON.parse(result) as { free?: Record<string, string[]> }).free ?? {};
    const [date, times] = Object.entries(free)[0] ?? [];
    return date && times?.[0] ? `${date}T${times[0]}` : undefined;
  } catch {
    return undefined;
  }
}

export async function startProviderFakes(): Promise<ProviderFakes> {
  const day = bookingDay();
  const calcom = new CalcomFake('cal_live_e2e0123456789', CAL_EVENT_TYPE_ID, [`${day}T09:00:00Z`, `${day}T10:30:00Z`]);
  const [deepgram, openai, anthropic, eleven, cartesia, twilio]: [
    DeepgramFake,
    FakeOpenAi,
    FakeAnthropic,
    ElevenLabsFake,
    CartesiaFake,
    TwilioFake,
  ] = await Promise.all([
    DeepgramFake.start(),
    startFakeOpenAi(),
    startFakeAnthropic(),
    ElevenLabsFake.start(),
    CartesiaFake.start(),
    TwilioFake.start(),
  ]);
  await calcom.start();
  // a phone call placed by the app (Call me): answered, the callee says something after the greeting, hangs up
  twilio.calleeSays = { afterMs: 2500, ms: 1200 };
  twilio.calleeHangsUpAfterMs = 9000;
  // the account's own numbers, for Phone Numbers > 'Import from Twilio' (tests/e2e/import-numbers.test.ts)
  for (const n of TWILIO_ACCOUNT_NUMBERS)
    twilio.incoming.add(n.phone, { friendly_name: n.name, capabilities: { voice: n.voice, sms: true, mms: false } });
  deepgram.script = Array.from({ length: 200 }, () => CALLER_WORDS);
  openai.scriptChat((body) => {
    const { messages = [], tools = [] } = body as {
      messages?: { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown }[];
      tools?: { function?: { name?: string } }[];
    };
    const offers = (name: string) => tools.some((t) => t.function?.name === name);
    const said = lastUserText(body)
      .trim()
      .replace(/[.!?]+$/, '');
    const booking = /\bbook\b/i.test(said) && offers('check_slots') && offers('book_slot');
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      const result = String(last.content ?? '');
      // the free times came: book the first one
      const start = booking && toolNameOf(messages, last.tool_call_id) === 'check_slots' ? firstFreeTime(result) : undefined;
      if (start) return { toolCalls: [{ name: 'book_slot', arguments: { start, ...BOOKING_ATTENDEE } }] };
      // a function answered: the model reads its result back (the next turn goes on from there)
      return { text: `The function answered: ${result.slice(0, 200)}` };
    }
    if (booking) return { toolCalls: [{ name: 'check_slots', arguments: { start_date: day } }] };
    // asked to check availability, by an agent that offers a function of that name: call it
    if (/check availability/i.test(said) && tools.some((t) => t.function?.name === 'check_availability'))
      return { toolCalls: [{ name: 'check_availability', arguments: { date: '2026-12-08' } }] };
    if (/\b(good ?bye|bye)\b/i.test(said)) return { text: 'Goodbye!', toolCalls: [{ name: 'end_call', arguments: {} }] };
    // what the system prompt says the caller's name is (a test puts `{{name}}` there)
    if (/what is my name/i.test(said)) {
      const system = (body as { messages?: { role: string; content: unknown }[] }).messages?.find((m) => m.role === 'system');
      const name = /Caller name: ([^\n.]*)/.exec(typeof system?.content === 'string' ? system.content : '')?.[1] ?? 'unknown';
      return { text: `Your name is ${name}.` };
    }
    return { text: `Happy to help. You said: ${said || 'nothing'}.` };
  });
  // short speech keeps the conversation quick (the playout is real time)
  eleven.msPerChar = 20;
  cartesia.msPerChar = 20;
  return {
    env: {
      OPENAI_BASE_URL: openai.url,
      ANTHROPIC_BASE_URL: anthropic.url,
      DEEPGRAM_API_URL: deepgram.url,
      ELEVENLABS_API_URL: eleven.url,
      CARTESIA_API_URL: cartesia.url,
      TWILIO_API_URL: twilio.url,
      CAL_API_URL: calcom.url,
      ALLOW_PRIVATE_TOOL_URLS: 'true',
    },
    keys: {
      deepgram: deepgram.key,
      openai: openai.apiKey,
      anthropic: anthropic.apiKey,
      elevenlabs: eleven.key,
      cartesia: cartesia.key,
      calcom: calcom.apiKey,
      bookingDay: day,
      twilio: { accountSid: twilio.accountSid, authToken: twilio.authToken },
    },
    async close() {
      await Promise.all([
        deepgram.close(),
        openai.close(),
        anthropic.close(),
        eleven.close(),
        cartesia.close(),
        twilio.close(),
        calcom.close(),
      ]);
    },
  };
}
