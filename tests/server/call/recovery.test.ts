import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { afterStart } from '../../../server/compose.js';
import { recordingsDir } from '../../../server/modules/calls/detail.js';
import { serverIdOf } from '../../../server/modules/conversations/recovery.js';
import { createCallRuntime } from '../../../server/modules/conversations/runtime.js';
import { createCallSession } from '../../../server/modules/conversations/session.repo.js';
import { askCarriersAboutCalls } from '../../../server/modules/telephony/recovery.js';
import { parseEnv } from '../../../server/platform/env.js';
import type { PlivoFake } from '../../fakes/plivo.js';
import type { TwilioFake } from '../../fakes/twilio.js';
import { describeEachDb } from '../helpers.js';
import { insertNumber } from '../seed.js';
import { type PhoneWorld, startPlivoWorld, startTwilioWorld } from '../telephony/phone-world.js';
import { connectProvider, openBrowser, sampleAgent, savePayload, useCallServer, waitFor } from './harness.js';
import { InProcessProviders, tone } from './in-process-providers.js';

/**
 * A server that dies mid-call (docs/call-runtime.md, "When things go wrong"; server/modules/conversations/recovery.ts):
 * the call it held is stored when it starts again, at once, from the progress it saved (usage and cost
 * with the transcript), ended at its last heartbeat, its recording repaired and kept; the phone calls
 * that were ringing meanwhile are asked of the carrier and stored with the carrier's status. The
 * process-level version (SIGKILL) is in tests/server/crash.test.ts.
 */

const env = parseEnv({ DEMO: 'off' });

describeEachDb('a call its server died with', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });

  it('is stored at the restart, at once, with the usage of its last turn, its duration to its last heartbeat and its recording', async () => {
    const s = server();
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    p.replies = [{ text: 'We open at ten.' }];
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: savePayload(agent, { message: 'Hello, this is the clinic.' }) },
    });
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const callId = data.call_id;
    const browser = openBrowser(s, callId, data.access_token);
    await browser.opened;
    const startedAt = s.t.clock.now().getTime();
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'greeting heard');
    // 13 s into the call the caller asks something (3 s of voice: the recording reaches the disk) and is answered
    s.t.clock.advance(13_000);
    // the line takes audio at real time (server/voice/lines/audio-gate.ts): a second at a time
    for (let second = 0; second < 3; second++) {
      if (second > 0) await new Promise((r) => setTimeout(r, 1100));
      for (let i = 0; i < 50; i++) browser.send(tone(640, { encoding: 'pcm16', sampleRate: 16000 }));
    }
    const stt = await waitFor(() => p.stt[0], 'the speech stream');
    await waitFor(() => stt.audioBytes >= 150 * 640, 'caller audio at the recogniser');
    stt.emit({ type: 'speech_started', at: performance.now() });
    stt.emit({ type: 'transcript', text: 'When do you open?', isFinal: true, speechFinal: true, at: performance.now() });
    const db = s.t.deps.db.db;
    const saved = await waitFor(async () => {
      const row = await db.selectFrom('call_sessions').selectAll().where('id', '=', callId).executeTakeFirstOrThrow();
      return JSON.parse(row.transcript).length === 3 && row.cost > 0 ? row : undefined;
    }, 'the progress of the answered turn');
    await waitFor(() => browser.of('state').some((e) => e.value === 'listening'), 'the answer played');
    const usage = JSON.parse(saved.usage) as { tts_characters: number; llm_output_tokens: number };
    expect(usage.tts_characters).toBe('Hello, this is the clinic.We open at ten.'.length);
    expect(usage.llm_output_tokens).toBeGreaterThan(0);
    expect(saved.heartbeat_at).toBe(new Date(startedAt + 13_000).toISOString());
    const file = path.join(recordingsDir(s.t.deps.config.dataDir, s.user.companyId), `${callId}.wav`);
    const left = fs.readFileSync(file);
    expect(left.length).toBeGreaterThan(44);
    expect(left.readUInt32LE(40)).toBe(0); // the header is only finalised on close

    // the process dies here: it starts again with the same server id and nothing live, 20 s into the call
    // (the heartbeat is not stale yet: another server's sweeper would wait two minutes)
    s.t.deps.calls = createCallRuntime(s.rt.providers, s.rt.serverId);
    s.t.clock.advance(7_000);
    const background = await afterStart(s.t.deps, env, () => {});
    try {
      const ended = await db.selectFrom('call_sessions').selectAll().where('id', '=', callId).executeTakeFirstOrThrow();
      expect(ended).toMatchObject({
        status: 'error',
        disconnection_reason: 'error_unknown',
        error_message: 'The server running this call stopped.',
        ended_at: new Date(startedAt + 13_000).toISOString(),
        usage: saved.usage,
        cost: saved.cost,
        recording: `${callId}.wav`,
      });
      const history = await db.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirstOrThrow();
      expect(history).toMatchObject({ duration: 13, cost: saved.cost, status: 'error' });
      // the recording is playable: its header now says how much audio it holds, in whole stereo frames
      const detail = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const d = ((await detail.json()) as { data: { recording_url: string; usage: { tts_characters: number } } }).data;
      expect(d.usage.tts_characters).toBe(usage.tts_characters);
      const wav = Buffer.from(await (await fetch(`${s.baseUrl}${d.recording_url}`)).arrayBuffer());
      expect(wav.subarray(0, 4).toString()).toBe('RIFF');
      expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
      expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
      expect((wav.length - 44) % 4).toBe(0);
      expect(wav.length - 44).toBeGreaterThanOrEqual(2 * 16000 * 4); // at least 2 s of stereo audio
    } finally {
      await background.stop();
    }
  });

  it('keeps its server id across restarts (a file in DATA_DIR)', () => {
    const dir = fs.mkdtempSync(path.join(server().t.dataDir, 'srv-'));
    const first = serverIdOf(dir);
    expect(first).toMatch(/^srv-/);
    expect(serverIdOf(dir)).toBe(first);
    expect(serverIdOf(fs.mkdtempSync(path.join(server().t.dataDir, 'other-')))).not.toBe(first);
  });
});

describeEachDb('phone calls in flight at a restart', (kind) => {
  const worlds: PhoneWorld<{ url: string; close(): Promise<void> }>[] = [];
  afterEach(async () => {
    await Promise.all(worlds.splice(0).map((w) => w.close()));
  });

  /** A number of the company on `provider` whose inbound and outbound agent is the sample agent. */
  async function numberWithAgent(world: PhoneWorld<unknown>, phone: string, provider: 'twilio' | 'plivo') {
    const s = world.s;
    const agent = await sampleAgent(s);
    const id = await insertNumber(s.t, s.user.companyId, phone, { provider });
    await s.t.deps.db.db
      .updateTable('phone_numbers')
      .set({ inbound_agent_id: agent._id, outbound_agent_id: agent._id })
      .where('id', '=', id)
      .execute();
    return agent;
  }

  /** The phone world of `name`, its carrier's keys connected; closed after the test. */
  async function phoneWorld<C extends TwilioFake | PlivoFake>(name: 'twilio' | 'plivo'): Promise<PhoneWorld<C>> {
    const world = name === 'twilio' ? await startTwilioWorld(kind) : await startPlivoWorld(kind);
    worlds.push(world);
    return world as unknown as PhoneWorld<C>;
  }

  it('Twilio: a call ringing when the server died is asked of Twilio at the restart and stored with its status', async () => {
    const world = await phoneWorld<TwilioFake>('twilio');
    const { s, carrier: twilio } = world;
    const FROM = '+14155550100';
    await numberWithAgent(world, FROM, 'twilio');
    // the server is gone while the calls ring: Twilio's status callbacks find nobody
    s.t.deps.config.publicUrl = 'http://127.0.0.1:9';
    twilio.outcomes.set('+14155550188', 'no-answer');
    const place = async (to: string) => {
      const res = await s.t.req('POST', '/api/v1/call/create', {
        token: s.user.token,
        body: { from_number: FROM, to_number: to },
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { data: { call_id: string } }).data.call_id;
    };
    const unanswered = await place('+14155550188');
    await (twilio.calls[0] as { done: Promise<void> }).done;
    // a call still ringing at the restart stays with the carrier's callbacks
    twilio.ringMs = 3_000;
    const ringing = await place('+14155550199');
    const status = async (id: string) =>
      s.t.deps.db.db
        .selectFrom('call_sessions')
        .select(['status', 'disconnection_reason', 'provider_call_id'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    expect(await status(unanswered)).toMatchObject({ status: 'registered' });
    expect(twilio.calls[0]?.callbacks.every((c) => c.code === 0)).toBe(true);

    s.t.clock.advance(1000);
    const background = await afterStart(s.t.deps, env, () => {});
    try {
      await waitFor(() => twilio.fetched.length === 2, 'the calls asked of Twilio');
      await waitFor(async () => (await status(unanswered)).status !== 'registered', 'the ended call stored');
      expect(await status(unanswered)).toMatchObject({ status: 'no-answer', disconnection_reason: 'dial_no_answer' });
      expect(twilio.fetched).toEqual([twilio.calls[0]?.sid, twilio.calls[1]?.sid]);
      expect(await status(ringing)).toMatchObject({ status: 'registered' });
      const history = await s.t.deps.db.db.selectFrom('calls').select(['id', 'status']).execute();
      expect(history).toEqual([{ id: unanswered, status: 'no-answer' }]);
    } finally {
      await background.stop();
    }
  });

  it('Plivo: a call whose hangup callback was lost is stored from its call detail record; one still live is left', async () => {
    const world = await phoneWorld<PlivoFake>('plivo');
    const { s, carrier: plivo } = world;
    const NUMBER = '+14155550100';
    const agent = await numberWithAgent(world, NUMBER, 'plivo');
    plivo.outcomes.set('+14155550188', 'busy');
    // two calls at Plivo whose callbacks lead nowhere: one busy (ended), one still ringing
    const dial = async (to: string) => {
      const res = await fetch(`${plivo.url}/v1/Account/${plivo.authId}/Call/`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from(`${plivo.authId}:${plivo.authToken}`).toString('base64')}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({
          from: '14155550100',
          to: to.slice(1),
          answer_url: 'http://127.0.0.1:9/a',
          hangup_url: 'http://127.0.0.1:9/h',
        }),
      });
      expect(res.status).toBe(201);
      return plivo.calls.at(-1) as (typeof plivo.calls)[number];
    };
    const busy = await dial('+14155550188');
    await busy.done;
    plivo.ringMs = 3_000;
    const live = await dial('+14155550199');
    const rows = [];
    for (const call of [busy, live])
      rows.push(
        await createCallSession(s.t.deps.db.db, {
          companyId: s.user.companyId,
          accountId: null,
          agentId: agent._id,
          agent: savePayload(agent) as never,
          type: 'inbound',
          from: `+${call.to}`,
          to: NUMBER,
          phoneNumber: NUMBER,
          variables: {},
          provider: 'plivo',
          providerCallId: call.uuid,
          now: s.t.clock.now(),
        }),
      );
    s.t.clock.advance(1000);
    expect(await askCarriersAboutCalls(s.t.deps, s.t.clock.now())).toEqual({ asked: 2, ended: 1 });
    expect(plivo.fetched).toEqual([busy.uuid, live.uuid]);
    const after = await s.t.deps.db.db
      .selectFrom('call_sessions')
      .select(['id', 'status', 'disconnection_reason'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const byId = new Map(after.map((r) => [r.id, r]));
    expect(byId.get(rows[0]?.id as string)).toMatchObject({ status: 'busy', disconnection_reason: 'dial_busy' });
    expect(byId.get(rows[1]?.id as string)).toMatchObject({ status: 'registered' });
  });
});
