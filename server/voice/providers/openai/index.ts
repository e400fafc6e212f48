/** OpenAI: Chat Completions (chat.ts) and the Realtime API (realtime.ts); its models are the contract's LLM_MODELS rows. */
import { defineProvider } from '../descriptor.js';
import { createOpenAiChat } from './chat.js';
import { createOpenAiRealtime } from './realtime.js';

export const openai = defineProvider('openai', {
  url: { default: 'https://api.openai.com', env: 'OPENAI_BASE_URL' },
  // List models (https://platform.openai.com/docs/api-reference/models/list): GET /v1/models with the Bearer
  // key, also served by OpenAI-compatible servers (vLLM, Ollama); a wrong key is 401 invalid_api_key
  // {error: {message, type, code}} (https://platform.openai.com/docs/guides/error-codes)
  keyCheck: {
    field: 'API Key',
    request: (v) => ({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${v('API Key')}` } }),
  },
  create: () => ({ llm: createOpenAiChat(), realtime: createOpenAiRealtime() }),
});
