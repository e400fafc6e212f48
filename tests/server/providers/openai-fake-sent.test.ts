/**
 * The OpenAI fake's `onSent` hook (bench/tools.ts times a tool turn from it): it is told once when the first
 * `tool_calls` chunk has been written, before the client has the assembled call, and once when `[DONE]` has
 * been written; a reply without tool calls tells only `done`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOpenAiChat } from '../../../server/voice/providers/openai/chat.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { BOOK_TOOL, llmRequest } from './llm-helpers.js';

let fake: FakeOpenAi;
const provider = createOpenAiChat({ firstByteMs: 2000, idleMs: 2000 });
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());

/** The hook's calls and the client's events, in the order they happened. */
async function timeline(reply: Parameters<FakeOpenAi['scriptChat']>[0]) {
  const seen: string[] = [];
  fake.scriptChat(
    (Array.isArray(reply) ? reply : []).map((r) => ({ ...r, onSent: (what: string) => seen.push(`sent ${what}`) })),
  );
  for await (const e of provider.stream(llmRequest(fake, 'gpt-4o', { tools: [BOOK_TOOL] })))
    if (e.type === 'tool_call' || e.type === 'done') seen.push(`client ${e.type}`);
  return seen;
}

it('tells when the first tool_calls chunk and [DONE] were written, once each, before the client has them', async () => {
  const seen = await timeline([
    {
      toolCalls: [
        { id: 'call_a', name: 'book_appointment', arguments: { day: 'Tuesday' } },
        { id: 'call_b', name: 'book_appointment', arguments: { day: 'Friday' } },
      ],
    },
  ]);
  // [DONE] and the client's end are on two sides of the loopback: their order is not asserted
  expect(seen.slice(0, 3)).toEqual(['sent tool_call', 'client tool_call', 'client tool_call']);
  expect(seen.slice(3).sort()).toEqual(['client done', 'sent done']);
});

it('a reply without tool calls tells only done', async () => {
  expect((await timeline([{ text: 'Tuesday works.' }])).sort()).toEqual(['client done', 'sent done']);
});
