/** Anthropic: the Messages API (messages.ts); its models are the contract's LLM_MODELS rows. */
import { defineProvider } from '../descriptor.js';
import { createAnthropic } from './messages.js';

export const anthropic = defineProvider('anthropic', {
  url: { default: 'https://api.anthropic.com', env: 'ANTHROPIC_BASE_URL' },
  create: () => ({ llm: createAnthropic() }),
});
