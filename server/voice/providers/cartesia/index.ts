/** Cartesia: text-to-speech over its TTS WebSocket (tts.ts). */
import { defineProvider } from '../descriptor.js';
import { CARTESIA_VERSION, cartesiaModelId, createCartesiaTts } from './tts.js';

export const cartesia = defineProvider('cartesia', {
  url: { default: 'https://api.cartesia.ai', env: 'CARTESIA_API_URL' },
  // List Voices (https://docs.cartesia.ai/api-reference/voices/list): GET /voices with `Authorization: Bearer
  // <key>` and the dated `Cartesia-Version` every request must send
  // (https://docs.cartesia.ai/use-the-api/api-conventions); a wrong key is 401
  keyCheck: {
    field: 'API Key',
    request: (v) => ({
      method: 'GET',
      path: '/voices?limit=1',
      headers: { authorization: `Bearer ${v('API Key')}`, 'Cartesia-Version': CARTESIA_VERSION },
    }),
  },
  voice: { modelId: cartesiaModelId },
  create: () => ({ tts: createCartesiaTts() }),
});
