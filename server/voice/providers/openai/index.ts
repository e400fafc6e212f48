/** OpenAI: Chat Completions (chat.ts) and the Realtime API (realtime.ts); its models are the contract's LLM_MODELS rows. */
import { defineProvider } from '../descriptor.js';
import { createOpenAiChat } from './chat.js';
import { createOpenAiRealtime } from './realtime.js';

export const openai = defineProvider('openai', {
  url: { default: 'https://api.openai.com', env: 'OPENAI_BASE_URL' },
  create: () => ({ llm: createOpenAiChat(), realtime: createOpenAiRealtime() }),
});
