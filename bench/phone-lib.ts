/**
 * What the phone benches share: the provider fakes a phone call needs (the fake Twilio, and
 * the Deepgram, OpenAI and ElevenLabs protocol fakes answering at once), a JSON client of a Parley server,
 * and a company set up through the API as a user would: providers connected, the sample agent tuned for
 * measuring (responsiveness 1, interruption 1), a Twilio number and Billing > Limits.
 */
import { DeepgramFake } from '../tests/fakes/deepgram.js';
import { ElevenLabsFake } from '../tests/fakes/elevenlabs.js';
import { startFakeOpenAi } from '../tests/fakes/openai.js';
import { TwilioFake } from '../tests/fakes/twilio.js';

/** the recogniser's endpointing silence and the agent's end-of-turn wait at responsiveness 1 (bench/call-engine.ts) */
export const ENDPOINTING_MS = 300;
export const END_OF_TURN_MS = 200;
export const FRAME_MS = 20;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const round1 = (n: number) => Math.round(n * 10) / 10;
export const log = (line = '') => process.stdout.write(`${line}\n`);

export async function startPhoneFakes() {
  const [twilio, deepgram, openai, eleven] = await Promise.all([
    TwilioFake.start(),
    DeepgramFake.start(),
    startFakeOpenAi({ chat: () => ({ text: 'Sure, I can help with that. What day suits you?' }) }),
    ElevenLabsFake.start(),
  ]);
  eleven.msPerChar = 20;
  deepgram.script = Array.from({ length: 100_000 }, () => 'I would like to book a visit.');
  return {
    twilio,
    deepgram,
    openai,
    eleven,
    /** the server's environment pointing at the fakes */
    env: {
      TWILIO_API_URL: twilio.url,
      DEEPGRAM_API_URL: deepgram.url,
      OPENAI_BASE_URL: openai.url,
      ELEVENLABS_API_URL: eleven.url,
    },
    close: async () => {
      await twilio.close();
      await Promise.all([deepgram.close(), openai.close(), eleven.close()]);
    },
  };
}
export type PhoneFakes = Awaited<ReturnType<typeof startPhoneFakes>>;

// biome-ignore lint/suspicious/noExplicitAny: the bench reads arbitrary answers
type Json = any;

/** A JSON client of the server at `baseUrl` (a FormData body is sent as is); throws on an error status. */
export function apiOf(baseUrl: string) {
  return async (method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body instanceof FormData || typeof body === 'string' ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body instanceof FormData || typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/**
 * A company on the server: signed up, its providers connected, the sample agent saved for measuring, the
 * number `phone` with that agent inbound or outbound, and its concurrency limit. Answers the token.
 */
export async function phoneCompany(
  baseUrl: string,
  fakes: PhoneFakes,
  p: { phone: string; direction: 'inbound' | 'outbound'; concurrencyLimit: number },
) {
  const api = apiOf(baseUrl);
  const form = new FormData();
  form.set('name', 'Bench Caller');
  form.set('email', `bench-phone-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`);
  form.set('password', 'bench calls password 1234');
  const { token } = (await api('POST', '/account/register', undefined, form)) as { token: string };
  for (const [name, key] of [
    ['deepgram', fakes.deepgram.key],
    ['openai', fakes.openai.apiKey],
    ['elevenlabs', fakes.eleven.key],
  ] as const)
    await api('POST', '/provider/values', token, { name, keys: [{ name: 'API Key', value: key }] });
  await api('POST', '/provider/values', token, {
    name: 'twilio',
    keys: [
      { name: 'Account SID', value: fakes.twilio.accountSid },
      { name: 'Auth Token', value: fakes.twilio.authToken },
    ],
  });
  const list = await api('GET', '/agent?page=1&limit=1', token);
  const agentId = list.data.agents[0]._id as string;
  const full = await api('GET', `/agent/${agentId}`, token);
  const { name, prompt, settings, editor } = full.data.agent;
  await api('PUT', `/agent/${agentId}`, token, {
    name,
    prompt,
    message: 'Hello, this is the clinic.',
    settings,
    editor: { ...editor, responsiveness: 1, interruption: 1, endCallOnSilence: 60, reminderTimes: 0 },
  });
  await api('POST', '/number/create', token, {
    phone_number: p.phone,
    phone_number_type: 'local',
    phone_number_pretty: p.phone,
    termination_uri: 'acme.pstn.twilio.com',
    [p.direction === 'inbound' ? 'inbound_agent_id' : 'outbound_agent_id']: agentId,
  });
  await api('PUT', '/billing/limits', token, { concurrencyLimit: p.concurrencyLimit, monthlySpendLimit: 100_000 });
  return { token, api };
}
