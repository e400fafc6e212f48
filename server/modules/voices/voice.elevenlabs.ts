import { parseJson } from '@contract/json.js';
import type { Voice } from '@contract/voice.js';
import * as v from 'valibot';
import { type AppDeps, realHttpClient } from '../../platform/deps.js';
import { elevenlabs } from '../../voice/providers/elevenlabs/index.js';

/** The voice list under an ElevenLabs API base (the same base as the TTS socket: ELEVENLABS_API_URL). */
export const elevenLabsVoicesUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}/v1/voices`;
export const ELEVENLABS_VOICES_URL = elevenLabsVoicesUrl(elevenlabs.url.default);
/** More than any account has; a longer answer is cut here. */
const MAX_VOICES = 1000;
/** The answer is read up to this size (about 4 KB a voice); a longer one is treated as unreachable. */
export const ELEVENLABS_ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/** The body as text, or undefined once it passes `max` bytes (the rest is not read). */
async function textUpTo(res: Response, max: number): Promise<string | undefined> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const AnswerSchema = v.object({
  voices: v.array(
    v.object({
      voice_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(200)),
      name: v.pipe(v.string(), v.maxLength(200)),
      labels: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
    }),
  ),
});

export class ElevenLabsError extends Error {
  constructor(readonly kind: 'rejected' | 'unreachable') {
    super(kind === 'rejected' ? 'ElevenLabs refused the key' : 'ElevenLabs could not be reached');
  }
}

/**
 * The voices of the ElevenLabs account of `apiKey` (GET <base>/v1/voices with the `xi-api-key` header);
 * `baseUrl` is the configured ElevenLabs API origin, api.elevenlabs.io when absent.
 */
export async function fetchElevenLabsVoices(
  deps: Pick<AppDeps, 'http'>,
  apiKey: string,
  baseUrl: string = elevenlabs.url.default,
): Promise<Voice[]> {
  const http = deps.http ?? realHttpClient;
  let res: Response;
  try {
    res = await http.fetch(elevenLabsVoicesUrl(baseUrl), { headers: { 'xi-api-key': apiKey, accept: 'application/json' } });
  } catch {
    throw new ElevenLabsError('unreachable');
  }
  if (res.status === 401 || res.status === 403) throw new ElevenLabsError('rejected');
  if (!res.ok) throw new ElevenLabsError('unreachable');
  let body: unknown;
  try {
    const text = await textUpTo(res, ELEVENLABS_ANSWER_MAX_BYTES);
    if (text === undefined) throw new ElevenLabsError('unreachable');
    body = parseJson(text);
  } catch {
    throw new ElevenLabsError('unreachable');
  }
  const parsed = v.safeParse(AnswerSchema, body);
  if (!parsed.success) throw new ElevenLabsError('unreachable');
  return parsed.output.voices.slice(0, MAX_VOICES).map((voice) => {
    const gender = voice.labels?.gender;
    return {
      voice_id: voice.voice_id,
      name: voice.name || voice.voice_id,
      labels: typeof gender === 'string' ? { gender } : {},
      source: 'elevenlabs' as const,
    };
  });
}
