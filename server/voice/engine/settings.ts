/**
 * How an agent's settings drive a conversation ("the agent's settings all act"). Pure functions
 * of the stored agent document, compiled into the call plan (plan.ts); unit-tested value by value.
 *
 * | editor setting              | effect                                                                  |
 * |-----------------------------|-------------------------------------------------------------------------|
 * | welcome message             | spoken first, variables filled (empty: the caller speaks first)         |
 * | pause before speaking (s)   | wait before the welcome message                                          |
 * | responsiveness 0..1         | end-of-turn wait after the caller's utterance: 1 -> 200 ms, 0 -> 1500 ms |
 * | interruption 0..1           | caller speech over the agent needed to interrupt: 1 -> at once, 0.8 -> 200 ms, 0 -> never |
 * | reminder every N s, M times | the agent checks in after N s of silence, at most M times per silence   |
 * | end call on silence (min)   | the call ends for inactivity after that long without caller speech (0: never) |
 * | max call duration (h)       | the call ends at that length (0: no limit)                              |
 * | boosted keywords            | passed to speech recognition                                            |
 * | backchanneling, words, freq | short acknowledgements while the caller talks (see backchannel.ts)       |
 * | pronunciations              | SSML phoneme tags for voices that read them                              |
 * | knowledge bases             | searched on every caller turn; the best chunks go to the LLM            |
 * | functions end_call/transfer | tools the LLM may call; the engine ends or moves the call                |
 * | other functions             | prepared through the tool registry at the start, run when the LLM calls them |
 * | keypad: dtmf_max_digits, dtmf_timeout_ms | a phone caller's keys end an entry at '#', that many keys, or that much silence (keypad.ts) |
 * | voice, voice model, speed   | the voice provider's voice, model and speed; stability and similarity from the saved settings |
 * | LLM model, temperature      | the LLM and its temperature                                             |
 */
import type { AgentFunction } from '@contract/agent/functions.js';
import type { AgentDoc } from '@contract/agent/save.js';
import type { CallSessionInput } from '../../../src/machines/callSession.machine.js';
import type { ToolSpec } from '../providers/types.js';
import { commaList } from './text.js';

export const END_OF_TURN_FASTEST_MS = 200;
export const END_OF_TURN_SLOWEST_MS = 1500;
export const CONNECT_TIMEOUT_MS = 30_000;
export const HANGUP_GRACE_MS = 3000;
/** Deepgram: silence that finalises a segment, and the word gap that ends an utterance (its minimum). */
export const STT_ENDPOINTING_MS = 300;
export const STT_UTTERANCE_END_MS = 1000;

export type CallMode = 'voice' | 'text';

const clamp01 = (n: number) => Math.min(1, Math.max(0, Number.isFinite(n) ? n : 0));

export function endOfTurnMs(responsiveness: number): number {
  return Math.round(END_OF_TURN_FASTEST_MS + (1 - clamp01(responsiveness)) * (END_OF_TURN_SLOWEST_MS - END_OF_TURN_FASTEST_MS));
}

/** ms of caller speech over the agent that interrupt it; null = the agent is never interrupted. */
export function bargeInMs(interruption: number): number | null {
  const s = clamp01(interruption);
  return s === 0 ? null : Math.round((1 - s) * 1000);
}

/**
 * The machine's input for an agent (text mode: no pauses, reminders, silence or duration limits;
 * speech-to-speech: the provider's voice detection already waited the end-of-turn time, and it has no
 * reminders).
 */
export function sessionInput(agent: AgentDoc, mode: CallMode, greeting: string, speechToSpeech = false): CallSessionInput {
  const e = agent.editor;
  const voice = mode === 'voice';
  if (speechToSpeech && voice)
    return { ...sessionInput(agent, mode, greeting), endOfTurnMs: 0, reminderMs: 0, reminderTimes: 0, speechToSpeech: true };
  return {
    mode,
    greeting,
    pauseBeforeSpeakingMs: voice ? Math.round(e.pauseBeforeSpeaking * 1000) : 0,
    endOfTurnMs: endOfTurnMs(e.responsiveness),
    bargeInMs: voice ? bargeInMs(e.interruption) : null,
    reminderMs: voice && e.reminderTimes > 0 ? Math.round(e.reminderSeconds * 1000) : 0,
    reminderTimes: voice ? e.reminderTimes : 0,
    endOnSilenceMs: voice ? Math.round(e.endCallOnSilence * 60_000) : 0,
    maxDurationMs: voice ? Math.round(e.maxCallDuration * 3_600_000) : 0,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    hangupGraceMs: HANGUP_GRACE_MS,
  };
}

export const boostedKeywords = (agent: AgentDoc) => commaList(agent.editor.boostedKeywords);

/** The tool name the LLM calls for each of the agent's functions (their own name, else the type). */
export interface AgentTool {
  spec: ToolSpec;
  type: 'end_call' | 'transfer';
  /** transfer: where the caller is moved (phone calls) */
  number?: string;
  /** transfer: cold (the caller is moved at once) or warm (the person hears a summary first) */
  mode?: 'cold' | 'warm';
  /** warm transfer: how long the person may take to answer */
  timeoutMs?: number;
  /** warm transfer: what the caller hears while the person is dialled */
  speakDuring?: string;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The agent's functions the tool registry runs (server/voice/tools): every type but end_call and transfer. */
export function runnableFunctions(agent: AgentDoc): AgentFunction[] {
  return agent.editor.functions.filter((f) => f.type !== 'end_call' && f.type !== 'transfer');
}

export function agentTools(agent: AgentDoc): AgentTool[] {
  return agent.editor.functions.flatMap((f): AgentTool[] => {
    if (f.type !== 'end_call' && f.type !== 'transfer') return [];
    const name = TOOL_NAME.test(f.name) ? f.name : f.type === 'end_call' ? 'end_call' : 'transfer_call';
    if (f.type === 'end_call')
      return [
        {
          type: 'end_call' as const,
          spec: {
            name,
            description:
              f.description?.trim() ||
              'End the call. Use it when the conversation is over or the caller asks to hang up; say goodbye in the same reply.',
            parameters: {
              type: 'object',
              properties: { reason: { type: 'string', description: 'Why the call ends, in a few words.' } },
              required: [],
            },
          },
        },
      ];
    return [
      {
        type: 'transfer' as const,
        ...(f.number ? { number: f.number } : {}),
        ...(f.mode === 'warm'
          ? { mode: 'warm' as const, timeoutMs: f.timeout_ms, speakDuring: f.speak_during?.trim() ?? '' }
          : { mode: 'cold' as const }),
        spec: {
          name,
          description: f.description?.trim() || 'Transfer the caller to a person when they ask for one or you cannot help.',
          parameters: {
            type: 'object',
            properties: { reason: { type: 'string', description: 'Why the caller is transferred.' } },
            required: [],
          },
        },
      },
    ];
  });
}
