import { expect } from 'vitest';
import { type LlmEvent, type LlmProvider, type LlmRequest, ProviderError } from '../../../server/voice/providers/types.js';

/** Every event of one completion, in order. */
export async function collect(provider: LlmProvider, request: LlmRequest): Promise<LlmEvent[]> {
  const events: LlmEvent[] = [];
  for await (const e of provider.stream(request)) events.push(e);
  return events;
}

/** The ProviderError a completion throws (fails the test when it ends normally or throws something else). */
export async function refusal(provider: LlmProvider, request: LlmRequest): Promise<ProviderError> {
  try {
    await collect(provider, request);
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error('the completion ended without an error');
}

export const textOf = (events: LlmEvent[]) =>
  events
    .filter((e) => e.type === 'delta')
    .map((e) => e.text)
    .join('');

/** Polls until `fn` is true (a functional wait, no timing asserted). */
export async function until(fn: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The largest number of items handled within one turn of the event loop (`turns` holds each item's turn). */
export function mostPerTurn(turns: number[]): number {
  const perTurn = new Map<number, number>();
  for (const t of turns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
  return Math.max(0, ...perTurn.values());
}

export const BOOK_TOOL = {
  name: 'book_appointment',
  description: 'Books a visit',
  parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
};

/** A completion request to a fake: the dental front desk asked for a cleaning. */
export const llmRequest = (
  fake: { apiKey: string; url: string },
  model: string,
  overrides: Partial<LlmRequest> = {},
): LlmRequest => ({
  apiKey: fake.apiKey,
  baseUrl: fake.url,
  model,
  messages: [
    { role: 'system', content: 'You are the front desk of a dental clinic.' },
    { role: 'user', content: 'Can I book a cleaning?' },
  ],
  tools: [],
  temperature: 0.4,
  maxTokens: 300,
  signal: new AbortController().signal,
  ...overrides,
});
