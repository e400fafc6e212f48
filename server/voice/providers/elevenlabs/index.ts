/** ElevenLabs: text-to-speech over stream-input (tts.ts); the editor's voice models are ElevenLabs'. */
import { defineProvider } from '../descriptor.js';
import { createElevenLabsTts, elevenLabsModelId, PHONEME_MODELS } from './tts.js';

export const elevenlabs = defineProvider('elevenlabs', {
  url: { default: 'https://api.elevenlabs.io', env: 'ELEVENLABS_API_URL' },
  voice: { modelId: elevenLabsModelId, readsPhonemes: (model) => PHONEME_MODELS.has(model) },
  create: () => ({ tts: createElevenLabsTts() }),
});
