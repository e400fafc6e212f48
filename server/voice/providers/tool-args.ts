/** A tool call's arguments as the LLM providers send them: a JSON object in a string. */
import { providerLabel } from '@contract/provider.js';
import { ProviderError } from './types.js';

/** Parses a tool call's JSON arguments; '' is no arguments. */
export function parseArguments(provider: string, name: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProviderError(provider, 'unavailable', `${providerLabel(provider)} sent unreadable arguments for ${name}`);
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}
