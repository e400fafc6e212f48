/**
 * Contract of the voice list. `GET /voices` (alias
 * `GET /provider/voices`, which the spec names but leaves unused) answers the voices an agent can speak
 * with: the voices of the company's ElevenLabs account first when ElevenLabs is connected (fetched with
 * the stored key), then the built-in catalogue. `elevenlabs` says whether the account's voices are in.
 */
import * as v from 'valibot';

export const VoiceSchema = v.object({
  voice_id: v.string(),
  name: v.string(),
  labels: v.optional(v.object({ gender: v.optional(v.string()) })),
  /** 'elevenlabs' for the connected account's voices, 'builtin' for the catalogue */
  source: v.optional(v.picklist(['builtin', 'elevenlabs'])),
});
export type Voice = v.InferOutput<typeof VoiceSchema>;

export const ELEVENLABS_VOICE_STATES = ['not_connected', 'connected', 'unavailable'] as const;
export type ElevenLabsVoiceState = (typeof ELEVENLABS_VOICE_STATES)[number];

export const VoicesResponseSchema = v.object({
  success: v.literal(true),
  voices: v.array(VoiceSchema),
  /** not_connected: catalogue only; connected: the account's voices are listed first; unavailable: the account could not be read */
  elevenlabs: v.picklist(ELEVENLABS_VOICE_STATES),
  /** why the account's voices are missing (unavailable) */
  notice: v.optional(v.string()),
});
export type VoicesResponse = v.InferOutput<typeof VoicesResponseSchema>;

export const VOICE_MESSAGES = {
  rejectedKey: 'ElevenLabs refused the connected key: showing the built-in voices.',
  unreachable: 'ElevenLabs could not be reached: showing the built-in voices.',
} as const;

export const VOICE_PATHS = { list: '/voices', providerAlias: '/provider/voices' } as const;
