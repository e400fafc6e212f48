/**
 * One web call's line: the WebSocket to `/call/web/{id}/stream`, fed by the microphone's 20 ms
 * frames and feeding the agent's frames to a stream player. Text frames from the server are validated with
 * the contract; `clear` drops the agent's audio not yet played here, the others go to `onEvent`.
 */
import * as v from 'valibot';
import { type WebCallServerEvent, WebCallServerEventSchema } from '../api/contract/call-runtime';
import type { Microphone } from './microphone';
import { createStreamPlayer, type StreamPlayer } from './player';

export type CallLineEvent =
  | { type: 'opened' }
  | WebCallServerEvent
  /** the socket closed (after `ended`, or without it when the connection was lost) */
  | { type: 'closed'; code: number };

export interface CallLine {
  setMuted(muted: boolean): void;
  /** Asks the server to end the call (it answers `ended`, then closes). */
  hangup(): void;
  /** the caller's and the agent's levels now (0..1) */
  levels(): { caller: number; agent: number };
  /**
   * Closes the socket and releases the microphone. After the server's `ended`, the agent's words already
   * received play to their end (the goodbye); otherwise the playback stops at once.
   */
  close(): void;
}

/** The longest goodbye played after the line is closed. */
const MAX_TAIL_MS = 3000;

/** Frames the microphone may queue while the socket is slow before new ones are dropped (1 s). */
const MAX_BUFFERED_BYTES = 50 * 640;

export function openCallLine(url: string, microphone: Microphone, onEvent: (e: CallLineEvent) => void): CallLine {
  const player: StreamPlayer = createStreamPlayer(microphone.context);
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  let muted = false;
  let closed = false;
  let ended = false;
  microphone.onFrame((frame) => {
    if (ws.readyState === WebSocket.OPEN && ws.bufferedAmount < MAX_BUFFERED_BYTES) ws.send(frame);
  });
  ws.onopen = () => onEvent({ type: 'opened' });
  ws.onmessage = (message: MessageEvent<ArrayBuffer | string>) => {
    if (typeof message.data !== 'string') {
      player.push(message.data);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(message.data);
    } catch {
      return;
    }
    const parsed = v.safeParse(WebCallServerEventSchema, json);
    if (!parsed.success) return;
    const event = parsed.output as WebCallServerEvent;
    if (event.type === 'clear') player.clear();
    if (event.type === 'ended') ended = true;
    onEvent(event);
  };
  ws.onclose = (e) => {
    if (!closed) onEvent({ type: 'closed', code: e.code });
  };
  return {
    setMuted(next) {
      muted = next;
      microphone.setMuted(muted);
    },
    hangup() {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'hangup' }));
    },
    levels: () => ({ caller: muted ? 0 : microphone.level(), agent: player.level() }),
    close() {
      if (closed) return;
      closed = true;
      ws.onopen = ws.onmessage = ws.onclose = null;
      if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close(1000);
      const tailMs = ended ? Math.min(MAX_TAIL_MS, Math.ceil(player.buffered() * 1000)) : 0;
      if (tailMs === 0) player.close();
      microphone.close(tailMs);
    },
  };
}
