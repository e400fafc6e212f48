/**
 * The chat's line (Test LLM): no audio. The agent's reply goes out as text deltas to a sink (the message
 * request's event stream), and its tool calls and the results of the functions the engine ran as events.
 */
import type { TextLine, TextLineHandlers } from './types.js';

export interface TextSink {
  delta(text: string): void;
  toolCall(name: string, args: Record<string, unknown>): void;
  /** a function the engine ran answered: what the model read (cut), and how long it took */
  toolResult?(name: string, ok: boolean, result: string, ms: number): void;
  /** a conversation-flow agent entered a node */
  node?(nodeId: string, name: string): void;
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

  toolResult(name: string, ok: boolean, result: string, ms: number): void {
    if (!this.closed) this.sink.toolResult?.(name, ok, result, ms);
  }

  node(nodeId: string, name: string): void {
    if (!this.closed) this.sink.node?.(nodeId, name);
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
