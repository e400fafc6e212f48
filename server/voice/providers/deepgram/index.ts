/** Deepgram: live speech-to-text (stt.ts). */
import { defineProvider } from '../descriptor.js';
import { createDeepgramStt } from './stt.js';

export const deepgram = defineProvider('deepgram', {
  url: { default: 'https://api.deepgram.com', env: 'DEEPGRAM_API_URL' },
  create: () => ({ stt: createDeepgramStt() }),
});
