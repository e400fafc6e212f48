/**
 * webCall: a test call from the browser. The microphone is opened first and held (with the
 * socket) only while a call is being made: a refused microphone creates no call; the call is created once,
 * with the agent as the editor had it at Start, and its socket opened with the URL the server gave; the
 * transcript and the agent's state follow the server; Mute is told to the line; Hang up asks the server to
 * end the call; a call ends once, for one reason; a failure says why; a new call starts clean.
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { WEB_CALL_MESSAGES } from '../../../src/machines/webCall.machine.js';
import { cameFrom, ev, expectNothingPending, expectPending, onlyRequest } from './lib.js';
import { defineInvariants, type Snapshot, type World } from './types.js';

type Line = { role: 'user' | 'agent'; text: string; final: boolean };
const before = (w: World) => w.previous as Snapshot;
const inCall = (s: Snapshot, ...sub: string[]) => sub.some((k) => s.matches({ active: k }));
/** The commands the machine sent to the line actor in this step. */
const toLine = (w: World) =>
  w.actionsNow
    .filter((a) => a.type === 'xstate.sendTo' && (a.params as { targetId?: string }).targetId === 'line')
    .map((a) => (a.params as { event: unknown }).event);
/** A call starts clean: nothing of the previous one is kept. */
const fresh = {
  callId: null,
  agentState: null,
  transcript: [],
  muted: false,
  levels: null,
  endReason: null,
  endMessage: null,
  error: null,
  errorLink: null,
};

export default defineInvariants({
  always: (s, w) => {
    const active = s.matches('active');
    // the microphone and the socket are held exactly while a call is being made
    expectPending(w, 'callLine', active ? 1 : 0);
    expectPending(w, 'startWebCall', inCall(s, 'starting') ? 1 : 0);
    expect(s.hasTag('starting')).toBe(inCall(s, 'microphone', 'starting', 'connecting'));
    expect(s.hasTag('live')).toBe(inCall(s, 'live', 'hangingUp'));
    // the meters read the microphone once it is open
    if (inCall(s, 'starting', 'connecting', 'live', 'hangingUp')) expect(s.context.levels).toEqual(expect.any(Function));
    if (inCall(s, 'microphone')) expect(s.context.levels).toBeNull();
    if (inCall(s, 'connecting', 'live', 'hangingUp')) expect(s.context.callId).toEqual(expect.any(String));
    if (inCall(s, 'microphone', 'starting')) expect(s.context.callId).toBeNull();
    // a failure's message shows only on the failed call; why it ended only on the ended one
    expect(s.context.error !== null).toBe(s.matches('failed'));
    if (s.context.errorLink !== null) expect(s.matches('failed')).toBe(true);
    expect(s.context.endReason !== null).toBe(s.matches('ended'));
    if (!w.previous) {
      expect(s.matches('idle')).toBe(true);
      expect(s.context).toMatchObject({ request: null, ...fresh });
      return;
    }
    // a caller's line still being spoken is the last one: it grows in place, and the agent's answer settles it
    const lines = s.context.transcript as Line[];
    lines.slice(0, -1).forEach((line, i) => {
      if (!line.final) expect([line.role, lines[i + 1]?.role], `line ${i} is still being spoken`).toEqual(['agent', 'user']);
    });
    const commands = toLine(w);
    if (w.event.type === 'call.start' || w.event.type === 'call.close') {
      // a new call (or a closed window) keeps nothing of the previous call
      const { levels: _l, ...rest } = fresh;
      expect(s.context).toMatchObject(rest);
      expect(s.context.levels).toBeNull();
      expect(s.context.request).toEqual(w.event.type === 'call.start' ? ev(w).request : before(w).context.request);
      expect(commands).toEqual([]);
      return;
    }
    expect(s.context.request).toEqual(before(w).context.request);
    // Mute flips the microphone and tells the line; nothing else mutes
    if (w.event.type === 'mute.toggle' && cameFrom(w, 'active')) {
      expect(s.context.muted).toBe(!before(w).context.muted);
      expect(commands).toEqual([{ type: 'line.mute', muted: s.context.muted }]);
    } else expect(s.context.muted).toBe(before(w).context.muted);
    // the transcript follows the server: words already said for good never change, one line at a time
    const was = before(w).context.transcript as Line[];
    const now = s.context.transcript as Line[];
    expect(now.length - was.length).toBeGreaterThanOrEqual(0);
    expect(now.length - was.length).toBeLessThanOrEqual(w.event.type === 'line.transcript' ? 2 : 0);
    was.forEach((line, i) => {
      if (line.final) expect(now[i]).toEqual(line);
      // only the line being spoken changes its words; no line changes speaker
      else if (i === now.length - 1) expect(now[i]?.role).toBe(line.role);
      else expect([now[i]?.role, now[i]?.text]).toEqual([line.role, line.text]);
    });
    if (w.event.type === 'line.transcript') {
      const e = ev(w);
      expect(now.at(-1)).toEqual({ role: e.role, text: e.text, final: e.final });
    }
    if (w.event.type === 'line.state') expect(s.context.agentState).toBe(ev(w).value);
    else expect(s.context.agentState).toBe(before(w).context.agentState);
    // a call ends once: why it ended is not rewritten
    if (before(w).context.endReason !== null)
      expect([s.context.endReason, s.context.endMessage]).toEqual([before(w).context.endReason, before(w).context.endMessage]);
  },
  states: {
    idle: (s, w) => {
      expectNothingPending(w);
      // a cancelled attempt ends nothing: no reason, no failure to show
      expect([s.context.endReason, s.context.error]).toEqual([null, null]);
      // only the tester cancels a call (Hang up before it exists, or closing the window)
      if (cameFrom(w, 'active')) expect(['call.hangup', 'call.close']).toContain(w.event.type);
    },
    'active.microphone': (s, w) => {
      // the microphone first: no call is created before it is open
      expectPending(w, 'startWebCall', 0);
      if (!cameFrom(w, 'active')) expect(w.startedNow.map((r) => r.src)).toEqual(['callLine']);
      expect(s.context.callId).toBeNull();
    },
    'active.starting': (s, w) => {
      // the call is created once, with the agent as the editor had it at Start
      expect(onlyRequest(w, 'startWebCall')).toEqual(s.context.request);
      if (cameFrom(w, 'active.microphone')) {
        expect(w.event.type).toBe('mic.ready');
        expect(s.context.levels).toBe(ev(w).levels);
        expect(w.startedNow.map((r) => r.src)).toEqual(['startWebCall']);
      } else expect(w.startedNow).toEqual([]);
    },
    'active.connecting': (s, w) => {
      if (cameFrom(w, 'active.starting')) {
        // the socket is opened with the one-time URL the server gave for this call
        const { callId, url } = ev(w).output as { callId: string; url: string };
        expect(s.context.callId).toBe(callId);
        expect(toLine(w)).toEqual([{ type: 'line.connect', url }]);
      }
    },
    'active.live': (s, w) => {
      if (cameFrom(w, 'active.connecting')) {
        expect(w.event.type).toBe('line.opened');
        expect(toLine(w)).toEqual([]);
      }
      expect(s.context.callId).toBe(before(w).context.callId);
    },
    'active.hangingUp': (_s, w) => {
      // Hang up asks the server to end the call, once
      if (cameFrom(w, 'active.live')) {
        expect(w.event.type).toBe('call.hangup');
        expect(toLine(w)).toEqual([{ type: 'line.hangup' }]);
      } else expect(toLine(w)).not.toContainEqual({ type: 'line.hangup' });
    },
    ended: (s, w) => {
      // the line is let go: no microphone, no socket
      expectNothingPending(w);
      if (!cameFrom(w, 'active')) return;
      const e = ev(w);
      if (cameFrom(w, 'active.hangingUp') && w.event.type !== 'line.ended') expect(s.context.endReason).toBe('user_hangup');
      else if (w.event.type === 'line.ended') {
        expect([s.context.endReason, s.context.endMessage]).toEqual([e.reason, e.message ?? null]);
      } else {
        expect(w.event.type).toBe('line.closed');
        expect([s.context.endReason, s.context.endMessage]).toEqual(['connection_lost', WEB_CALL_MESSAGES.connectionLost]);
      }
      // the transcript and the call stay to be read
      expect(s.context.transcript).toEqual(before(w).context.transcript);
      expect(s.context.callId).toBe(before(w).context.callId);
    },
    failed: (s, w) => {
      expectNothingPending(w);
      if (!cameFrom(w, 'active')) return;
      const e = ev(w);
      if (w.event.type === 'mic.failed') {
        // a refused microphone: its message, and no call was ever created for this Start
        expect(s.context.error).toBe(e.message);
        const start = w.events.findLastIndex((x) => x.type === 'call.start');
        expect(w.started.filter((r) => r.src === 'startWebCall' && r.step > start).length).toBe(
          cameFrom(w, 'active.microphone') ? 0 : 1,
        );
      } else if (w.event.type === 'xstate.error.actor.startWebCall') {
        if (e.error instanceof ApiError) {
          expect(s.context.error).toBe(e.error.serverMessage ?? e.error.message);
          expect(s.context.errorLink).toBe(e.error.link ?? null);
        } else expect([s.context.error, s.context.errorLink]).toEqual([WEB_CALL_MESSAGES.startFailed, null]);
      } else {
        // the socket did not open in time
        expect(cameFrom(w, 'active.connecting')).toBe(true);
        expect(s.context.error).toBe(WEB_CALL_MESSAGES.connectFailed);
      }
    },
  },
  explore: {
    events: {
      'line.ended': [{ type: 'line.ended', reason: 'error_llm_provider', message: 'OpenAI is down.' }],
    },
  },
});
