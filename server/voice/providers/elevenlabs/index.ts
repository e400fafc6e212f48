/** ElevenLabs: text-to-speech over stream-input (tts.ts); the editor's voice models are ElevenLabs'. */
import { defineProvider } from '../descriptor.js';
import { createElevenLabsTts, elevenLabsModelId, PHONEME_MODELS } from './tts.js';

export const elevenlabs = defineProvider('elevenlabs', {
  url: { default: 'https://api.elevenlabs.io', env: 'ELEVENLABS_API_URL' },
  // Get user (https://elevenlabs.io/docs/api-reference/user/get): GET /v1/user with `xi-api-key`; a wrong key
  // is 401 {detail: {status: 'invalid_api_key', message}} (https://elevenlabs.io/docs/api-reference/authentication)
  keyCheck: {
    field: 'API Key',
    request: (v) => ({ method: 'GET', path: '/v1/user', headers: { 'xi-api-key': v('API Key') } }),
  },
  voice: { modelId: elevenLabsModelId, readsPhonemes: (model) => PHONEME_MODELS.has(model) },
  create: () => ({ tts: createElevenLabsTts() }),
});
