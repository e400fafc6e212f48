/** Anthropic: the Messages API (messages.ts); its models are the contract's LLM_MODELS rows. */
import { defineProvider } from '../descriptor.js';
import { ANTHROPIC_VERSION, createAnthropic } from './messages.js';

export const anthropic = defineProvider('anthropic', {
  url: { default: 'https://api.anthropic.com', env: 'ANTHROPIC_BASE_URL' },
  // List Models (https://docs.anthropic.com/en/api/models-list): GET /v1/models with `x-api-key` and
  // `anthropic-version`; a wrong key is 401 {type: 'error', error: {type: 'authentication_error', message}}
  // (https://docs.anthropic.com/en/api/errors)
  keyCheck: {
    field: 'API Key',
    request: (v) => ({
      method: 'GET',
      path: '/v1/models?limit=1',
      headers: { 'x-api-key': v('API Key'), 'anthropic-version': ANTHROPIC_VERSION },
    }),
  },
  create: () => ({ llm: createAnthropic() }),
});
