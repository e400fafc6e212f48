/**
 * The LLM's messages for an agent turn: the agent's prompt (variables filled) with the house rules of a
 * spoken conversation, the knowledge found for the caller's last words, and the conversation so far. An
 * interrupted agent turn is given as the caller heard it, marked as cut off. Its function calls are given
 * with the results the model read then.
 */
import type { ToolCallRecord, Turn } from '../../../src/machines/callSession.machine.js';
import type { LlmMessage } from '../providers/types.js';

export const VOICE_RULES =
  'You are speaking with a caller on a live voice call. Answer in short spoken sentences, one idea at a time. ' +
  'Never use markdown, lists, emojis or URLs: everything you write is read aloud.';
export const TEXT_RULES = 'You are chatting with a person testing this agent. Keep your answers short.';
export const REMINDER_NOTE =
  'The caller has been silent for a while. Check briefly and kindly whether they are still there, in one sentence.';

/** What the model is told a cancelled function answered (its real result was dropped). */
export const CANCELLED_RESULT = 'Not answered: the caller interrupted before the function finished.';

/**
 * A past tool call's result as the model read it: a function the engine ran gives its real result (cut);
 * end_call and transfer have none ('ok').
 */
function toolResultOf(record: ToolCallRecord | undefined): string {
  if (!record?.status) return 'ok';
  if (record.status === 'cancelled') return CANCELLED_RESULT;
  return record.result ?? '';
}

export interface PromptParts {
  /** the agent's prompt with its variables filled */
  prompt: string;
  mode: 'voice' | 'text';
  history: readonly Turn[];
  knowledge: readonly string[];
  reminder: boolean;
  /** current time and other facts the agent may use */
  facts: string;
}

export function buildMessages(p: PromptParts): LlmMessage[] {
  const system = [p.prompt.trim(), p.mode === 'voice' ? VOICE_RULES : TEXT_RULES, p.facts].filter(Boolean).join('\n\n');
  const messages: LlmMessage[] = [{ role: 'system', content: system }];
  let callId = 0;
  for (const turn of p.history) {
    if (turn.role === 'user') {
      messages.push({ role: 'user', content: turn.text });
      continue;
    }
    const text = turn.interrupted ? `${turn.text} [the caller interrupted here]` : turn.text;
    const toolCalls = (turn.toolCalls ?? []).map((t) => ({ id: `call_${++callId}`, name: t.name, arguments: t.arguments }));
    messages.push({ role: 'assistant', content: text, ...(toolCalls.length ? { toolCalls } : {}) });
    for (const [i, t] of toolCalls.entries())
      messages.push({ role: 'tool', toolCallId: t.id, name: t.name, content: toolResultOf(turn.toolCalls?.[i]) });
  }
  if (p.knowledge.length > 0)
    messages.push({
      role: 'system',
      content: `Knowledge that may help with the caller's last words (use it only if relevant):\n\n${p.knowledge
        .map((k, i) => `[${i + 1}] ${k}`)
        .join('\n\n')}`,
    });
  if (p.reminder) messages.push({ role: 'system', content: REMINDER_NOTE });
  return messages;
}
