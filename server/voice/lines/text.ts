/**
 * The chat's line (Test LLM): no audio. The agent's reply goes out as text deltas to a sink (the message
 * request's event stream), and its tool calls as events.
 */
import type { TextLine, TextLineHandlers } from './types.js';

export interface TextSink {
  delta(text: string): void;
  toolCall(name: string, args: Record<string, unknown>): void;
}

export class ChatLine implements TextLine {
  readonly kind = 'chat' as const;
  private handlers: TextLineHandlers | undefined;
  private closed = false;

  constructor(private readonly sink: TextSink) {}

  start(handlers: TextLineHandlers): void {
    this.handlers = handlers;
  }

  toolCall(name: string, args: Record<string, unknown>): void {
    if (!this.closed) this.sink.toolCall(name, args);
  }

  text(delta: string): void {
    if (!this.closed) this.sink.delta(delta);
  }

  hangUp(): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers?.closed();
  }
}
