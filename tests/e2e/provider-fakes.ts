/**
 * The provider fakes of tests/fakes (Deepgram, OpenAI, Anthropic, ElevenLabs, Cartesia, Twilio) for the e2e server:
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
 * - ALLOW_PRIVATE_TOOL_URLS: a custom function may call a customer API the test runs on 127.0.0.1.
 */
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { CartesiaFake } from '../fakes/cartesia.js';
import { DeepgramFake } from '../fakes/deepgram.js';
import { ElevenLabsFake } from '../fakes/elevenlabs.js';
import { type FakeOpenAi, startFakeOpenAi } from '../fakes/openai.js';
import { TwilioFake } from '../fakes/twilio.js';

export const CALLER_WORDS = 'I would like to book a cleaning.';

export interface FakeKeys {
  deepgram: string;
  openai: string;
  anthropic: string;
  elevenlabs: string;
  cartesia: string;
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

export async function startProviderFakes(): Promise<ProviderFakes> {
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
  // a phone call placed by the app (Call me): answered, the callee says something after the greeting, hangs up
  twilio.calleeSays = { afterMs: 2500, ms: 1200 };
  twilio.calleeHangsUpAfterMs = 9000;
  deepgram.script = Array.from({ length: 200 }, () => CALLER_WORDS);
  openai.scriptChat((body) => {
    const { messages = [], tools = [] } = body as {
      messages?: { role: string; content?: unknown }[];
      tools?: { function?: { name?: string } }[];
    };
    // a function answered: the model reads its result back (the next turn goes on from there)
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: `The function answered: ${String(last.content ?? '').slice(0, 200)}` };
    const said = lastUserText(body)
      .trim()
      .replace(/[.!?]+$/, '');
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
      ALLOW_PRIVATE_TOOL_URLS: 'true',
    },
    keys: {
      deepgram: deepgram.key,
      openai: openai.apiKey,
      anthropic: anthropic.apiKey,
      elevenlabs: eleven.key,
      cartesia: cartesia.key,
      twilio: { accountSid: twilio.accountSid, authToken: twilio.authToken },
    },
    async close() {
      await Promise.all([deepgram.close(), openai.close(), anthropic.close(), eleven.close(), cartesia.close(), twilio.close()]);
    },
  };
}
