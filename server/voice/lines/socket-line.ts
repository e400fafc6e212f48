/**
 * What every WebSocket line shares (the browser's, web.ts; the carriers' media streams, twilio.ts and
 * plivo.ts): the agent's audio paced by a Playout, the caller's audio held to real time by an AudioGate
 * (the excess dropped and counted; a line that keeps flooding is hung up with LINE_FLOOD_REASON), the
 * caller's frames that arrive before the engine has started kept (up to about 3 s) and replayed on
 * start(), and one way to close: the playout stops, the socket closes, and the engine hears `closed` (at
 * once, or on start() when the line closed first).
 */
import type WebSocket from 'ws';
import type { AudioFormat } from '../providers/types.js';
import { AudioGate, type AudioGateOptions, LINE_FLOOD_MESSAGE, LINE_FLOOD_REASON } from './audio-gate.js';
import { EarlyAudio } from './early-audio.js';
import { Playout } from './playout.js';
import type { AudioLineHandlers } from './types.js';

/** How long a flooding line's socket stays up after our close frame, before it is cut. */
export const FLOOD_CLOSE_GRACE_MS = 500;

export abstract class SocketLine {
  protected readonly playout: Playout;
  protected handlers: AudioLineHandlers | undefined;
  protected closed = false;
  private closedEarly = false;
  /** the caller's audio, held to real time */
  protected readonly gate: AudioGate;
  /** the line flooded before the engine started: it hears so on start() */
  private floodedEarly = false;
  /** caller frames that came before start() (the call's keys and recording were being prepared) */
  private readonly early = new EarlyAudio();

  constructor(
    protected readonly socket: WebSocket,
    format: AudioFormat,
    sendFrame: (frame: Uint8Array) => void,
    gate: AudioGateOptions = {},
  ) {
    this.playout = new Playout(format, { sendFrame });
    this.gate = new AudioGate(format, gate);
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

  get callerAudio() {
    return this.gate.stats;
  }

  start(handlers: AudioLineHandlers): void {
    this.handlers = handlers;
    this.early.drain((frame, at) => handlers.audio(frame, at));
    if (this.floodedEarly) handlers.failed?.({ reason: LINE_FLOOD_REASON, message: LINE_FLOOD_MESSAGE });
    if (this.closedEarly) handlers.closed();
  }

  sentMs(): number {
    return this.playout.sentMs();
  }

  queuedEndMs(): number {
    return this.playout.queuedEndMs();
  }

  /**
   * A frame of the caller's audio: what real time allows of it goes to the engine, or is kept until it
   * starts; the rest is dropped. A line that floods is hung up by the engine (once).
   */
  protected deliver(frame: Uint8Array, at: number) {
    if (this.gate.flooding) return;
    const admitted = this.gate.admit(frame);
    if (this.gate.flooding) return this.flooded();
    if (!admitted) return;
    if (this.handlers) this.handlers.audio(admitted, at);
    else this.early.keep(admitted, at);
  }

  /** A caller frame refused outright (malformed, oversized): counted as dropped, and it may flood the line. */
  protected refuse(bytes: number) {
    if (this.gate.flooding) return;
    this.gate.refuse(bytes);
    if (this.gate.flooding) this.flooded();
  }

  private flooded() {
    this.early.drop();
    // read nothing more from a line that floods: ws would otherwise unmask every frame still on its way
    // (tens of MiB a second) until the close handshake ends
    this.socket.pause();
    if (this.handlers) this.handlers.failed?.({ reason: LINE_FLOOD_REASON, message: LINE_FLOOD_MESSAGE });
    else this.floodedEarly = true;
  }

  /** The agent's side closes the line (hang-up): the engine hears `closed` if it has started. */
  protected close(reason?: string) {
    this.closed = true;
    this.playout.close();
    // a flooding client is told it broke the line's terms (1008 policy violation), everyone else 1000
    if (this.socket.readyState === this.socket.OPEN) {
      const flood = reason === LINE_FLOOD_REASON;
      this.socket.close(flood ? 1008 : 1000, flood ? 'audio flood' : 'call ended');
      // the flooding peer is no longer read, so its close frame is never seen: the connection is cut once
      // ours (and the ended event before it) had time to leave
      if (flood) setTimeout(() => this.socket.terminate(), FLOOD_CLOSE_GRACE_MS).unref();
    }
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
