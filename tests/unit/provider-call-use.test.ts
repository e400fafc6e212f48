import { describe, expect, it } from 'vitest';
import { PROVIDER_NAMES, PROVIDERS, providerCallUse } from '../../src/api/contract/provider';

// The line a provider's card shows when the provider makes an agent talk (src/api/contract/provider.ts).
describe('providerCallUse', () => {
  it('names what a speech, LLM or voice provider does in calls, in the catalogue kinds order', () => {
    expect(providerCallUse('deepgram')).toBe('Used for calls: speech recognition');
    expect(providerCallUse('elevenlabs')).toBe('Used for calls: voice');
    expect(providerCallUse('anthropic')).toBe('Used for calls: LLM');
    expect(providerCallUse('openai')).toBe('Used for calls: LLM / speech-to-speech');
  });

  it('is null for tools and carriers, which do not make an agent talk', () => {
    for (const name of ['twilio', 'plivo', 'calcom', 'calendly', 'perplexity', 'whatsapp'] as const)
      expect(providerCallUse(name)).toBeNull();
  });

  it('follows the catalogue: every provider with a speech, LLM, voice or realtime kind has a line', () => {
    const talking = PROVIDERS.filter((p) => p.kinds.some((k) => ['stt', 'llm', 'tts', 'realtime'].includes(k)));
    expect(PROVIDER_NAMES.filter((n) => providerCallUse(n) !== null)).toEqual(talking.map((p) => p.name));
    expect(talking.length).toBeGreaterThan(0);
  });
});
