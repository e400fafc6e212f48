/**
 * The conversation's clock: every time of the transcript is ms from the call's start (t0), and each turn's
 * moments are stamped as they happen, from the caller's speech to the agent's first audio. An answer turn's
 * latency is cut from them into its parts (speech recognition, end-of-turn wait, LLM, voice).
 */
import type { TurnLatency } from '@contract/call-runtime.js';

export interface TurnTimes {
  callerStartAt?: number;
  callerVoiceEndAt?: number;
  sttFinalAt?: number;
  commitAt?: number;
  llmRequestAt?: number;
  llmFirstTokenAt?: number;
  firstSentenceAt?: number;
  ttsFirstByteAt?: number;
  firstAudioAt?: number;
}

export class TurnClock {
  /** performance.now() at the start: every time of the transcript is ms from here */
  readonly t0 = performance.now();
  /** the moments of the turn in progress (a reply keeps its own object: a barge-in may start the next) */
  times: TurnTimes = {};
  /** when the agent's turn in progress started to be heard (its first audio or text) */
  agentTurnStartAt: number | undefined;

  /** ms from the start of the call. */
  at(t = performance.now()): number {
    return Math.max(0, Math.round(t - this.t0));
  }

  /**
   * An agent turn begins: the agent's side of the times belongs to this turn alone (a turn cut short, the
   * greeting the caller talked over, must not lend its first sentence or first byte to the answer after it).
   */
  beginReply(): TurnTimes {
    const times = this.times;
    times.llmRequestAt = times.llmFirstTokenAt = times.firstSentenceAt = times.ttsFirstByteAt = undefined;
    times.firstAudioAt = undefined;
    times.commitAt = performance.now();
    this.agentTurnStartAt = undefined;
    return times;
  }

  /** The reply that held `times` is over: the next turn starts afresh, unless a newer one already took them. */
  endReply(times: TurnTimes, stillCurrent: boolean): void {
    if (this.times === times && stillCurrent) this.times = {};
  }
}

/** The answer turn just spoken: end of the caller's speech -> the agent's first audio, in parts. */
export function latencyOf(t: TurnTimes, turn: number): TurnLatency | undefined {
  const end = t.callerVoiceEndAt ?? t.sttFinalAt ?? t.commitAt;
  if (end === undefined || t.firstAudioAt === undefined) return undefined;
  const d = (a?: number, b?: number) => (a !== undefined && b !== undefined ? Math.max(0, Math.round(b - a)) : 0);
  return {
    turn,
    total_ms: d(end, t.firstAudioAt),
    stt_ms: d(end, t.sttFinalAt ?? t.commitAt),
    wait_ms: d(t.sttFinalAt ?? t.commitAt, t.commitAt),
    llm_ms: d(t.llmRequestAt, t.llmFirstTokenAt),
    tts_ms: d(t.firstSentenceAt, t.ttsFirstByteAt),
  };
}
