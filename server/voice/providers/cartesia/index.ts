/** Cartesia: text-to-speech over its TTS WebSocket (tts.ts). */
import { defineProvider } from '../descriptor.js';
import { cartesiaModelId, createCartesiaTts } from './tts.js';

export const cartesia = defineProvider('cartesia', {
  url: { default: 'https://api.cartesia.ai', env: 'CARTESIA_API_URL' },
  voice: { modelId: cartesiaModelId },
  create: () => ({ tts: createCartesiaTts() }),
});
