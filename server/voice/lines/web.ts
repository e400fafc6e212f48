/**
 * The browser's line (Test in the agent editor): a WebSocket carrying 16 kHz mono PCM16 little-endian in
 * binary frames both ways, and JSON text frames from the server (transcript, state, clear, ended; see
 * src/api/contract/call-runtime.ts). The browser may send `{"type":"hangup"}`. The agent's audio is paced
 * by a Playout, so `clear` drops little and the heard position is known.
 */

import { WEB_CALL_FRAME_BYTES, WebCallClientEventSchema, type WebCallServerEvent } from '@contract/call-runtime.js';
import * as v from 'valibot';
import type WebSocket from 'ws';
import { BROWSER_AUDIO } from '../providers/types.js';
import { SocketLine } from './socket-line.js';
import type { AudioLine } from './types.js';

/** A caller frame larger than this is refused (a 20 ms frame is 640 bytes; a browser may batch a few). */
export const WEB_FRAME_MAX_BYTES = WEB_CALL_FRAME_BYTES * 16;
export class WebTransport extends SocketLine implements AudioLine {
  readonly kind = 'web' as const;
  readonly format = BROWSER_AUDIO;

  constructor(socket: WebSocket) {
    super(socket, BROWSER_AUDIO, (frame) => {
      if (socket.readyState === socket.OPEN) socket.send(frame, { binary: true });
    });
    // listen at once: the browser starts sending as soon as the socket opens
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
  }

  private receive(data: WebSocket.RawData, isBinary: boolean) {
    if (this.closed) return;
    if (isBinary) {
      const bytes = toBytes(data);
      // whole 16-bit samples only; an oversized frame is a misbehaving client (counted as dropped)
      if (bytes.byteLength === 0 || bytes.byteLength % 2 !== 0 || bytes.byteLength > WEB_FRAME_MAX_BYTES)
        return this.refuse(bytes.byteLength);
      this.deliver(bytes, performance.now());
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(data));
    } catch {
      return;
    }
    if (v.is(WebCallClientEventSchema, parsed) && parsed.type === 'hangup') {
      // the browser hears why its call ended, whoever ended it (the protocol's last text frame)
      this.notify({ type: 'ended', reason: 'user_hangup' });
      this.finish();
    }
  }

  play(chunk: Uint8Array): void {
    this.playout.play(chunk);
  }

  mark(onHeard: () => void): void {
    this.playout.mark(onHeard);
  }

  clear(): void {
    this.playout.clear();
    this.notify({ type: 'clear' });
  }

  heardMs(): number {
    return this.playout.heardMs();
  }

  notify(event: WebCallServerEvent): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(event));
  }

  hangUp(reason: string, message?: string): void {
    if (this.closed) return;
    this.notify({ type: 'ended', reason, ...(message ? { message } : {}) });
    this.close(reason);
  }
}

function toBytes(data: WebSocket.RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
