/**
 * The real provider adapters, as the engine takes them. Where each provider is reached comes from the
 * server's configuration (AppConfig.providerUrls) or a company's own OpenAI Base URL (keys.ts), never from
 * here: tests and production differ only in those URLs.
 */
import type { ProviderSet } from '../engine/pipeline.js';
import { createAnthropic } from './anthropic.js';
import { createCartesiaTts } from './cartesia.js';
import { createDeepgramStt } from './deepgram.js';
import { createElevenLabsTts } from './elevenlabs.js';
import { createOpenAiChat } from './openai-chat.js';
import { createOpenAiRealtime } from './openai-realtime.js';

export function createProviderSet(): ProviderSet {
  return {
    stt: createDeepgramStt(),
    llm: { openai: createOpenAiChat(), anthropic: createAnthropic() },
    tts: { elevenlabs: createElevenLabsTts(), cartesia: createCartesiaTts() },
    realtime: createOpenAiRealtime(),
  };
}
