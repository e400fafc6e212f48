import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type WebSocket from 'ws';
import { LINE_FLOOD_REASON } from '../../../server/voice/lines/audio-gate.js';
import { FLOOD_CLOSE_GRACE_MS } from '../../../server/voice/lines/socket-line.js';
import { WebTransport } from '../../../server/voice/lines/web.js';

/**
 * A line that floods stops being read at once and is cut soon after its close frame
 * (server/voice/lines/socket-line.ts): otherwise ws goes on unmasking every frame the peer still
 * sends until the close handshake ends, and a tenant that floods call after call holds the event loop
 * (bench/voice-flood.ts measured GET /health p99 61 ms before this, 21 ms after).
 */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly calls: string[] = [];
  send() {}
  pause() {
    this.calls.push('pause');
  }
  close(code: number) {
    this.calls.push(`close ${code}`);
  }
  terminate() {
    this.calls.push('terminate');
    this.readyState = 3;
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a flooding line', () => {
  it('is no longer read once it floods, and is cut a moment after the hang-up', () => {
    vi.useFakeTimers();
    const socket = new FakeSocket();
    const line = new WebTransport(socket as unknown as WebSocket);
    const failed: string[] = [];
    line.start({ audio: () => {}, closed: () => {}, failed: (f) => failed.push(f.reason) });
    const frame = Buffer.alloc(10_240);
    // far more than real time in one go: a few frames pass, the rest is dropped until the line floods
    for (let i = 0; i < 100 && failed.length === 0; i++) socket.emit('message', frame, true);
    expect(failed).toEqual([LINE_FLOOD_REASON]);
    expect(socket.calls).toEqual(['pause']);
    // the engine hangs up with the flood's reason: our close frame, then the cut
    line.hangUp(LINE_FLOOD_REASON);
    expect(socket.calls).toEqual(['pause', 'close 1008']);
    vi.advanceTimersByTime(FLOOD_CLOSE_GRACE_MS);
    expect(socket.calls).toEqual(['pause', 'close 1008', 'terminate']);
  });

  it('a line hung up for any other reason keeps the normal close handshake', () => {
    vi.useFakeTimers();
    const socket = new FakeSocket();
    const line = new WebTransport(socket as unknown as WebSocket);
    line.start({ audio: () => {}, closed: () => {} });
    socket.emit('message', Buffer.alloc(640), true);
    line.hangUp('agent_hangup');
    vi.advanceTimersByTime(60_000);
    expect(socket.calls).toEqual(['close 1000']);
  });
});
