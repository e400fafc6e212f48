import * as v from 'valibot';
import type { Voice } from '../../../src/api/contract/voice.js';
import { type AppDeps, realHttpClient } from '../../lib/deps.js';

export const ELEVENLABS_VOICES_URL = 'https://api.elevenlabs.io/v1/voices';
/** More than any account has; a longer answer is cut here. */
const MAX_VOICES = 1000;

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

/** The voices of the ElevenLabs account of `apiKey` (GET /v1/voices with the `xi-api-key` header). */
export async function fetchElevenLabsVoices(deps: Pick<AppDeps, 'http'>, apiKey: string): Promise<Voice[]> {
  const http = deps.http ?? realHttpClient;
  let res: Response;
  try {
    res = await http.fetch(ELEVENLABS_VOICES_URL, { headers: { 'xi-api-key': apiKey, accept: 'application/json' } });
  } catch {
    throw new ElevenLabsError('unreachable');
  }
  if (res.status === 401 || res.status === 403) throw new ElevenLabsError('rejected');
  if (!res.ok) throw new ElevenLabsError('unreachable');
  let body: unknown;
  try {
    body = await res.json();
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
