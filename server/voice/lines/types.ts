/**
 * A line carries one conversation. There are two kinds, and the engine treats them apart:
 * - an AudioLine (a voice call): the caller's audio in, the agent's audio out (paced), and the control a
 *   carrier offers (clear, marks, transfer, hang-up). The browser's WebSocket (web.ts) and the carriers'
 *   media streams (server/carriers/*) are audio lines; the engine asks the providers for the line's
 *   `format`, so no audio is transcoded on the way.
 * - a TextLine (a chat, Test LLM): the agent's reply goes out as text deltas and tool calls (text.ts).
 */
import type { WebCallServerEvent } from '@contract/call-runtime.js';
import type { CallFailure } from '../../../src/machines/callSession.machine.js';
import type { AudioFormat } from '../providers/types.js';
import type { CallerAudioStats } from './audio-gate.js';

export interface AudioLineHandlers {
  /** a frame of the caller's audio (line format), with its arrival time (performance.now) */
  audio(frame: Uint8Array, at: number): void;
  /** the line closed from the caller's side */
  closed(): void;
  /** the line ends the call for a reason of its own (it floods: audio-gate.ts) */
  failed?(failure: CallFailure): void;
  /** Phone lines: a key the caller pressed, as the carrier reports it on the stream (0-9, *, #, A-D). */
  digit?(digit: string, at: number): void;
}

export interface AudioLine {
  readonly kind: 'web' | 'phone';
  /** the line's audio format */
  readonly format: AudioFormat;
  /** Starts delivering the caller's side to `handlers` (audio frames, close). */
  start(handlers: AudioLineHandlers): void;
  /** Queues agent audio; it is sent paced, about one frame ahead of real time. */
  play(chunk: Uint8Array): void;
  /** Fires `onHeard` once the caller has heard everything queued so far. */
  mark(onHeard: () => void): void;
  /** Drops the agent audio not yet played (barge-in); the caller's side drops its buffer too. */
  clear(): void;
  /** ms of agent audio the caller has heard since the call began. */
  heardMs(): number;
  /** ms of agent audio sent to the line since the call began. */
  sentMs(): number;
  /** ms position where the audio queued so far ends (sent + queued), on the playout's timeline. */
  queuedEndMs(): number;
  /** Control events for the caller's UI (web: JSON frames; ignored elsewhere). */
  notify(event: WebCallServerEvent): void;
  /** Phone lines: moves the caller to `number` through the carrier (transfer_call). */
  transfer?(number: string): Promise<void>;
  /**
   * Phone lines, warm transfer_call: the carrier dials `number` while the caller stays on this line; when the
   * person answers they hear `summary`, then both are joined (the stream then stops). Answers how it went:
   * nobody answering within `timeoutMs` (or a busy, failed dial) leaves the caller here.
   */
  warmTransfer?(transfer: WarmTransfer): Promise<WarmTransferEnd>;
  /**
   * Phone lines: plays `digits` (0-9 * # A-D) into the call as in-band DTMF tones (ITU-T Q.23, 100 ms tone,
   * 100 ms gap) on the same media stream, after the agent audio already queued (press_digit).
   */
  playDigits?(digits: string, signal: AbortSignal): Promise<void>;
  /** Closes the line (the agent hangs up, or the call ends). */
  hangUp(reason: string, message?: string): void;
  /** frames of agent audio sent more than a frame late (bench) */
  readonly lateFrames: number;
  /** the caller's audio as the line took it, held to real time */
  readonly callerAudio: CallerAudioStats;
}

export interface TextLineHandlers {
  /** the line closed */
  closed(): void;
}

export interface TextLine {
  readonly kind: 'chat';
  start(handlers: TextLineHandlers): void;
  /** Part of the agent's reply. */
  text(delta: string): void;
  /** The LLM called a function (shown as an event in the chat). */
  toolCall(name: string, args: Record<string, unknown>): void;
  /** A function the engine ran answered (or failed): what the model read, cut, and how long it took. */
  toolResult?(name: string, ok: boolean, result: string, ms: number): void;
  /** A conversation-flow agent entered a node. */
  node?(nodeId: string, name: string): void;
  /** Closes the line (the agent hangs up, or the chat ends). */
  hangUp(reason: string, message?: string): void;
}

export type Line = AudioLine | TextLine;

export const isAudioLine = (line: Line): line is AudioLine => line.kind !== 'chat';

/** A warm transfer a phone line is asked for (AudioLine.warmTransfer). */
export interface WarmTransfer {
  number: string;
  /** what the person who answers hears before the caller is joined */
  summary: string;
  timeoutMs: number;
  /** the turn's life: aborted, the dial is cancelled */
  signal: AbortSignal;
}

/** How a warm transfer went: joined, or why not (the caller is still on the line). */
export type WarmTransferEnd = { connected: true } | { connected: false; reason: 'no-answer' | 'busy' | 'failed' | 'canceled' };
