import { describe, expect, it } from 'vitest';
import type { TranscriptTurn } from '../../src/api/contract/call-runtime.js';
import { clock, turnAt } from '../../src/routes/dashboard/call-history_.$callId.js';

const turns: TranscriptTurn[] = [
  { role: 'agent', text: 'Hello, how can I help?', start_ms: 0, end_ms: 1800 },
  { role: 'user', text: 'A cleaning, please.', start_ms: 2500, end_ms: 4000 },
  { role: 'agent', text: '', start_ms: 4600, end_ms: 4600 },
  { role: 'agent', text: 'Monday at 9?', start_ms: 5000, end_ms: 6200 },
];

describe('call detail', () => {
  it('the turn being heard: the last one started at the playback position, a turn without words skipped', () => {
    expect(turnAt(turns, 0)).toBe(0);
    expect(turnAt(turns, 2400)).toBe(0);
    expect(turnAt(turns, 2500)).toBe(1);
    expect(turnAt(turns, 4700)).toBe(1);
    expect(turnAt(turns, 90_000)).toBe(3);
    expect(turnAt([{ ...turns[1]!, start_ms: 100 }], 50)).toBe(-1);
  });

  it('times as m:ss from the start of the call', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(5_999)).toBe('0:05');
    expect(clock(65_000)).toBe('1:05');
    expect(clock(-20)).toBe('0:00');
  });
});
