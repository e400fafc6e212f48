/**
 * What every WebSocket line shares (the browser's, web.ts; the carriers' media streams, twilio.ts and
 * plivo.ts): the agent's audio paced by a Playout, the caller's frames that arrive before the engine has
 * started kept (up to about 3 s) and replayed on start(), and one way to close: the playout stops, the
 * socket closes, and the engine hears `closed` (at once, or on start() when the line closed first).
 */
import type WebSocket from 'ws';
import type { AudioFormat } from '../providers/types.js';
import { Playout } from './playout.js';
import type { TransportHandlers } from './types.js';

/** Caller frames kept until the call starts (about 3 s of 20 ms frames). */
const EARLY_FRAMES_MAX = 150;

export abstract class SocketLine {
  protected readonly playout: Playout;
  protected handlers: TransportHandlers | undefined;
  protected closed = false;
  private closedEarly = false;
  /** caller frames that came before start() (the call's keys and recording were being prepared) */
  private early: { frame: Uint8Array; at: number }[] = [];

  constructor(
    protected readonly socket: WebSocket,
    format: AudioFormat,
    sendFrame: (frame: Uint8Array) => void,
  ) {
    this.playout = new Playout(format, { sendFrame });
    socket.on('close', () => this.finish());
    socket.on('error', () => this.finish());
  }

  /** the playout, for the recorder (agent audio as it is sent) */
  get agentPlayout() {
    return this.playout;
  }

  get lateFrames() {
    return this.playout.lateFrames;
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    for (const { frame, at } of this.early) handlers.audio(frame, at);
    this.early = [];
    if (this.closedEarly) handlers.closed();
  }

  sentMs(): number {
    return this.playout.sentMs();
  }

  queuedEndMs(): number {
    return this.playout.queuedEndMs();
  }

  text(): void {}

  /** A frame of the caller's audio: to the engine, or kept until it starts. */
  protected deliver(frame: Uint8Array, at: number) {
    if (this.handlers) this.handlers.audio(frame, at);
    else if (this.early.length < EARLY_FRAMES_MAX) this.early.push({ frame, at });
  }

  /** The agent's side closes the line (hang-up): the engine hears `closed` if it has started. */
  protected close() {
    this.closed = true;
    this.playout.close();
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(1000, 'call ended');
    this.handlers?.closed();
  }

  /** The caller's side closed (socket closed or errored, the caller hung up, the carrier stopped). */
  protected finish() {
    if (this.closed) return;
    this.closed = true;
    this.playout.close();
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(1000, 'call ended');
    if (this.handlers) this.handlers.closed();
    else this.closedEarly = true;
  }
}
