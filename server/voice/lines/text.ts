/**
 * The chat's line (Test LLM): no audio. The agent's reply goes out as text deltas to a sink (the message
 * request's event stream); there is nothing to pace, so everything sent is heard at once.
 */
import type { Transport, TransportHandlers } from './types.js';

export interface TextSink {
  delta(text: string): void;
  toolCall(name: string, args: Record<string, unknown>): void;
}

export class TextTransport implements Transport {
  readonly kind = 'chat' as const;
  readonly format = null;
  readonly lateFrames = 0;
  private handlers: TransportHandlers | undefined;
  private closed = false;

  constructor(private sink: TextSink) {}

  /** The sink of the current message request. */
  setSink(sink: TextSink) {
    this.sink = sink;
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
  }

  play(): void {}

  mark(onHeard: () => void): void {
    onHeard();
  }

  clear(): void {}

  heardMs(): number {
    return 0;
  }

  sentMs(): number {
    return 0;
  }

  queuedEndMs(): number {
    return 0;
  }

  toolCall(name: string, args: Record<string, unknown>): void {
    if (!this.closed) this.sink.toolCall(name, args);
  }

  text(delta: string): void {
    if (!this.closed) this.sink.delta(delta);
  }

  notify(): void {}

  hangUp(): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers?.closed();
  }
}
