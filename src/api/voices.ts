/** Typed call of the voice list. */
import { type ApiClient, api } from './client';
import { VOICE_PATHS, VoicesResponseSchema } from './contract/voice';

export interface VoiceCallOptions {
  notify?: boolean;
  signal?: AbortSignal;
}

export function voicesApi(client: ApiClient) {
  return {
    /** GET /voices */
    list: (options?: VoiceCallOptions) => client.get(VOICE_PATHS.list, VoicesResponseSchema, options),
  };
}

export const voices = voicesApi(api);
