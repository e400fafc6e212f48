/**
 * What the parts of a conversation (listen.ts, reply.ts, realtime.ts) see of it: the plan and the
 * providers, the line, the clock and the record. conversation.ts implements it; the parts import only this
 * file, so none of them imports the conversation that runs them.
 */
import type { CallUsage, TranscriptTurn, TurnLatency } from '@contract/call-runtime.js';
import type { ReplyInput } from '../../../src/machines/callSession.machine.js';
import type { AppDeps } from '../../platform/deps.js';
import type { AudioLine, TextLine } from '../lines/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ProviderAccess, ProviderId } from '../providers/types.js';
import type { ToolEnvBase, ToolKinds } from '../tools/runner.js';
import type { PreparedTool, ToolCallInfo, ToolServices } from '../tools/types.js';
import type { CallerAudio } from './caller-audio.js';
import type { FlowRun, FlowRunState } from './flow.js';
import type { KnowledgeSearch } from './knowledge.js';
import type { CallPlan } from './plan.js';
import type { Speaker, Voice } from './speaker.js';
import type { TurnClock } from './turn-clock.js';

/** The company's access to each provider a call needs: key, API base, and whether the base is its own. */
export type ProviderKeys = Partial<Record<ProviderId, ProviderAccess>>;
export type { ProviderAccess };

/** What a conversation runs with. */
export interface CallOptions {
  deps: AppDeps;
  providers: ProviderRegistry;
  companyId: string;
  /** what the conversation does (plan.ts); its mode matches the line's kind */
  plan: CallPlan;
  keys: ProviderKeys;
  /** the chunks of the agent's knowledge bases that match the caller's words (the engine has no SQL) */
  knowledge: KnowledgeSearch;
  /** the function types the engine can run (default TOOL_KINDS; tests inject their own) */
  toolKinds?: ToolKinds;
  /** what the company's side does for tools (signing secret, text messages); default: neither is set up */
  toolServices?: ToolServices;
  /** what the functions are told about the call (call id, agent, type, numbers, variables) */
  call?: ToolCallInfo;
  /** the carrier of a phone line ('twilio', 'plivo') */
  carrier?: string;
  /** a conversation-flow chat's flow run as its previous message left it */
  flowState?: FlowRunState;
}

/** The agent turns of a speech-to-speech session (realtime.ts). */
export interface RealtimeTurns {
  reply(input: ReplyInput, signal: AbortSignal, onOutput: () => void): Promise<void>;
}

export interface CallContext {
  readonly options: Readonly<CallOptions>;
  readonly clock: TurnClock;
  readonly usage: CallUsage;
  readonly transcript: readonly TranscriptTurn[];
  readonly latency: TurnLatency[];
  /** the line of a voice call */
  readonly audio: AudioLine | undefined;
  /** the line of a chat */
  readonly chat: TextLine | undefined;
  /** the caller's audio on its way to the speech stream (or the speech-to-speech session) */
  readonly callerAudio: CallerAudio;
  /** the speech-to-speech session, for a Realtime agent's voice call */
  readonly realtime: RealtimeTurns | undefined;
  /** a conversation-flow agent's flow run (flow.ts); undefined for a single-prompt agent */
  readonly flow: FlowRun | undefined;
  /** the voice of the agent turn in progress (reply.ts) */
  speaker: Speaker | undefined;
  /** the agent turn in progress (reply.ts): a barge-in starts a new one before the old one is put away */
  turn: object | undefined;
  /** The agent's voice on `line` (speaker.ts). */
  voice(line: AudioLine): Voice;
  /** The recogniser's words while the caller talks: the backchannel counts them. */
  heardInterim(text: string, final: boolean): void;
  /** The speech-to-speech provider's transcript of what the caller said (it comes after the turn). */
  callerTranscriptArrived(text: string): void;
  /** transfer_call on a phone line: the carrier moves the caller. */
  transfer(number: string): void;
  /**
   * Warm transfer_call on a phone line: the LLM writes a short summary of the call, the carrier dials the
   * person, who hears it before the caller is joined. Answers the result the model is given.
   */
  warmTransfer(number: string, timeoutMs: number, signal: AbortSignal): Promise<{ connected: boolean; result: string }>;
  /** The agent's functions prepared at the conversation's start (runner.ts prepareTools). */
  tools(): Promise<PreparedTool[]>;
  /** What a tool runs with (each run gets its own signal). */
  readonly toolEnv: ToolEnvBase;
}

/** Resolves when `signal` aborts (an actor's life). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
