import { afterEach, expect, it } from 'vitest';
import { createCallSession } from '../../../server/modules/conversations/session.repo.js';
import * as m017 from '../../../server/platform/db/migrations/017_carrier_replay.js';
import { isUniqueViolation } from '../../../server/platform/http/db-errors.js';
import { resend } from '../../fakes/listen.js';
import { type PlivoFake, PlivoMediaStream, plivoActions } from '../../fakes/plivo.js';
import { FakeMediaStream, type TwilioFake, twilioSignature, twimlActions } from '../../fakes/twilio.js';
import { signUp } from '../auth-helpers.js';
import { waitFor } from '../call/harness.js';
import { buildTestApp, describeEachDb } from '../helpers.js';
import { agentOnCarrierNumber, type PhoneWorld, startPlivoWorld, startTwilioWorld } from './phone-world.js';

/**
 * Replayed carrier requests (docs/telephony.md, "Replays"): a carrier's request captured on the wire and
 * sent again must never make a second call, a second stream token, or a stream nobody signed. Against the
 * fakes of tests/fakes/{twilio,plivo}.ts, whose `sent` lists hold what they sent, byte for byte.
 */
describeEachDb('replayed carrier requests', (kind) => {
  const NUMBER = '+14155550100';
  const CALLER = '+14155550177';
  let world: PhoneWorld<TwilioFake> | PhoneWorld<PlivoFake> | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  async function twilioWorld() {
    const w = await startTwilioWorld(kind);
    world = w;
    w.eleven.msPerChar = 6;
    return w;
  }

  async function plivoWorld() {
    const w = await startPlivoWorld(kind);
    world = w;
    w.eleven.msPerChar = 6;
    return w;
  }

  const rowsOf = (w: PhoneWorld<unknown & { url: string; close(): Promise<void> }>, carrierId: string) =>
    w.s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('provider_call_id', '=', carrierId).execute();

  it('Twilio: a signed voice webhook replayed three times, then three at once, makes one call and one stream token', async () => {
    const w = await twilioWorld();
    await agentOnCarrierNumber(w.s, 'twilio', NUMBER, { message: 'Hello, this is the clinic.' });
    const voiceUrl = `${w.s.baseUrl}/api/v1/telephony/twilio/voice`;
    const { call, webhookStatus, twiml } = await w.carrier.inbound(voiceUrl, CALLER, NUMBER);
    expect(webhookStatus).toBe(200);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    const captured = w.carrier.sent.find((r) => r.url === voiceUrl);
    if (!captured) throw new Error('the webhook was not captured');

    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await resend(captured);
      expect(res.status).toBe(200);
      answers.push(await res.text());
    }
    const together = await Promise.all([1, 2, 3].map(() => resend(captured)));
    for (const res of together) {
      expect(res.status).toBe(200);
      answers.push(await res.text());
    }
    // the same TwiML each time: the same stream URL, the same (spent) token
    expect(answers).toEqual(Array(6).fill(twiml));
    expect(await rowsOf(w, call.sid)).toHaveLength(1);
    expect(await w.s.t.deps.db.db.selectFrom('call_sessions').select('id').execute()).toHaveLength(1);

    // the replayed answer's stream cannot be opened a second time, even signed by Twilio itself
    const url = (twimlActions(answers[5] as string)[0] as { url: string }).url;
    const second = new FakeMediaStream(url, twilioSignature(w.carrier.authToken, url), {
      accountSid: w.carrier.accountSid,
      callSid: call.sid,
      parameters: {},
    });
    await second.opened.catch(() => {});
    expect(second.refused).toBe(401);

    w.carrier.hangUpCaller(call);
    await call.done;
    const [row] = await waitFor(async () => {
      const rows = await rowsOf(w, call.sid);
      return rows[0]?.status === 'ended' ? rows : undefined;
    }, 'the call stored');
    expect(row?.disconnection_reason).toBe('user_hangup');
    expect(await w.s.t.deps.db.db.selectFrom('calls').select('id').execute()).toHaveLength(1);
  });

  it('Twilio: a replayed webhook of a refused call answers the same words and stores nothing more', async () => {
    const w = await twilioWorld();
    await agentOnCarrierNumber(w.s, 'twilio', NUMBER);
    await w.s.t.deps.db.db.updateTable('phone_numbers').set({ inbound_agent_id: null }).execute();
    const voiceUrl = `${w.s.baseUrl}/api/v1/telephony/twilio/voice`;
    const { call, twiml } = await w.carrier.inbound(voiceUrl, CALLER, NUMBER);
    expect(twimlActions(twiml).map((a) => a.verb)).toEqual(['say', 'hangup']);
    const captured = w.carrier.sent.find((r) => r.url === voiceUrl);
    if (!captured) throw new Error('the webhook was not captured');
    const again = await Promise.all([1, 2, 3].map(() => resend(captured).then((r) => r.text())));
    expect(again).toEqual([twiml, twiml, twiml]);
    const rows = await rowsOf(w, call.sid);
    expect(rows.map((r) => r.disconnection_reason)).toEqual(['no_inbound_agent']);
  });

  it('Plivo: a captured answer replayed verbatim is refused (its nonce was used); signed anew it answers the same XML', async () => {
    const w = await plivoWorld();
    await agentOnCarrierNumber(w.s, 'plivo', NUMBER, { message: 'Hello, this is the clinic.' });
    const answerUrl = `${w.s.baseUrl}/api/v1/telephony/plivo/answer`;
    const { call, status, xml } = await w.carrier.inbound(answerUrl, CALLER, NUMBER);
    expect(status).toBe(200);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    const captured = w.carrier.sent.find((r) => r.url === answerUrl);
    if (!captured) throw new Error('the answer was not captured');

    const replays = await Promise.all([1, 2, 3].map(() => resend(captured)));
    expect(replays.map((r) => r.status)).toEqual([403, 403, 403]);

    // Plivo itself asking again (a new nonce): the same XML, whose stream token is already spent
    const params = [...new URLSearchParams(captured.body)];
    const retried = await fetch(answerUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...w.carrier.signed(answerUrl, params) },
      body: captured.body,
    });
    expect(retried.status).toBe(200);
    const again = await retried.text();
    expect(again).toBe(xml);
    expect(await rowsOf(w, call.uuid)).toHaveLength(1);

    // the captured (signed) upgrade sent again: its nonce was used
    const upgrade = w.carrier.sent.find((r) => r.method === 'GET');
    if (!upgrade) throw new Error('the upgrade was not captured');
    const replayed = new PlivoMediaStream(upgrade.url, upgrade.headers, { authId: w.carrier.authId, callUuid: call.uuid });
    await replayed.opened.catch(() => {});
    expect(replayed.refused).toBe(403);
    // signed anew, the stream still cannot be opened twice
    const url = (plivoActions(again)[0] as { url: string }).url;
    const second = new PlivoMediaStream(url, w.carrier.signed(url, [], 'GET'), { authId: w.carrier.authId, callUuid: call.uuid });
    await second.opened.catch(() => {});
    expect(second.refused).toBe(401);

    w.carrier.hangUpCaller(call);
    await call.done;
    await waitFor(async () => ((await rowsOf(w, call.uuid))[0]?.status === 'ended' ? true : undefined), 'the call stored');
    expect(await w.s.t.deps.db.db.selectFrom('call_sessions').select('id').execute()).toHaveLength(1);

    // past the nonce's 25 hours the verbatim replay passes the signature check, and still makes nothing:
    // the same XML, whose token is spent
    w.s.t.clock.advance(26 * 3_600_000);
    const late = await resend(captured);
    expect(late.status).toBe(200);
    expect(await late.text()).toBe(xml);
    expect(await w.s.t.deps.db.db.selectFrom('call_sessions').select('id').execute()).toHaveLength(1);
  });

  it('Plivo: an outbound call’s answer callback replayed verbatim is refused; Plivo asking again gets the same XML', async () => {
    const w = await plivoWorld();
    await agentOnCarrierNumber(w.s, 'plivo', NUMBER, { message: 'Hello!' });
    const TO = '+14155550123';
    const res = await w.s.t.req('POST', '/api/v1/call/create', {
      token: w.s.user.token,
      body: { from_number: NUMBER, to_number: TO },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const callId = ((await res.json()) as { data: { call_id: string } }).data.call_id;
    const call = await waitFor(() => w.carrier.calls.find((c) => c.to === TO.slice(1)), 'the call placed');
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    const answerUrl = `${w.s.baseUrl}/api/v1/telephony/plivo/answer/${callId}`;
    const captured = w.carrier.sent.find((r) => r.url === answerUrl);
    if (!captured) throw new Error('the answer callback was not captured');
    const first = call.actions[0];

    expect((await resend(captured)).status).toBe(403);
    const params = [...new URLSearchParams(captured.body)];
    const again = await fetch(answerUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...w.carrier.signed(answerUrl, params) },
      body: captured.body,
    });
    expect(again.status).toBe(200);
    expect(plivoActions(await again.text())).toEqual([first]);
    // and that stream is the one already open: a second is refused
    const url = (first as { url: string }).url;
    const second = new PlivoMediaStream(url, w.carrier.signed(url, [], 'GET'), { authId: w.carrier.authId, callUuid: call.uuid });
    await second.opened.catch(() => {});
    expect(second.refused).toBe(401);
    w.carrier.hangUpCaller(call);
    await call.done;
    expect(await w.s.t.deps.db.db.selectFrom('call_sessions').select('id').execute()).toHaveLength(1);
  });

  it('Plivo: a stream upgrade without a signature, or with a bad one, is refused; a captured CallUUID never reaches the agent', async () => {
    const w = await plivoWorld();
    await agentOnCarrierNumber(w.s, 'plivo', NUMBER, { message: 'Hello, this is the clinic.' });
    const answerUrl = `${w.s.baseUrl}/api/v1/telephony/plivo/answer`;
    const uuid = '11111111-2222-3333-4444-555555555555';
    const params: [string, string][] = [
      ['CallUUID', uuid],
      ['Direction', 'inbound'],
      ['From', CALLER.slice(1)],
      ['To', NUMBER.slice(1)],
    ];
    const answer = await fetch(answerUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...w.carrier.signed(answerUrl, params) },
      body: new URLSearchParams(params).toString(),
    });
    expect(answer.status).toBe(200);
    const url = (plivoActions(await answer.text())[0] as { url: string }).url;

    const unsigned = new PlivoMediaStream(url, {}, { authId: w.carrier.authId, callUuid: uuid });
    await unsigned.opened.catch(() => {});
    const forged = new PlivoMediaStream(
      url,
      { 'X-Plivo-Signature-V3': 'bm90IGl0', 'X-Plivo-Signature-V3-Nonce': '42' },
      { authId: w.carrier.authId, callUuid: uuid },
    );
    await forged.opened.catch(() => {});
    expect([unsigned.refused, forged.refused]).toEqual([403, 403]);
    // nothing was said to them, and the call is still waiting for Plivo's own stream
    expect([...unsigned.received, ...forged.received]).toEqual([]);
    expect(w.eleven.streams).toHaveLength(0);
    const [waiting] = await rowsOf(w, uuid);
    expect(waiting?.status).toBe('registered');
    expect(await w.s.t.deps.db.db.selectFrom('calls').select('id').execute()).toEqual([]);

    // Plivo's own signed upgrade still opens it
    const real = new PlivoMediaStream(url, w.carrier.signed(url, [], 'GET'), { authId: w.carrier.authId, callUuid: uuid });
    await real.opened;
    await waitFor(() => real.of('playAudio').length > 0, 'the greeting');
    real.stop();
    await waitFor(async () => ((await rowsOf(w, uuid))[0]?.status === 'ended' ? true : undefined), 'the call stored');
  });

  it('migration 017 builds its unique index over the duplicate calls replays made before it', async () => {
    const t = await buildTestApp(kind);
    try {
      const user = await signUp(t);
      const other = await signUp(t);
      // the database as it was before 017, with the rows three replays of one webhook made
      await m017.down(t.deps.db.db);
      const make = (companyId: string, sid: string | null, at: string) =>
        createCallSession(t.deps.db.db, {
          companyId,
          accountId: null,
          agentId: null,
          agent: { name: 'A' } as never,
          type: 'inbound',
          from: CALLER,
          to: NUMBER,
          phoneNumber: NUMBER,
          variables: {},
          provider: 'twilio',
          providerCallId: sid,
          now: new Date(at),
        });
      const first = await make(user.companyId, 'CA1', '2026-01-01T10:00:00.000Z');
      const copies = [
        await make(user.companyId, 'CA1', '2026-01-01T10:00:01.000Z'),
        await make(user.companyId, 'CA1', '2026-01-01T10:00:02.000Z'),
      ];
      const elsewhere = await make(other.companyId, 'CA1', '2026-01-01T10:00:03.000Z');
      const web = [
        await make(user.companyId, null, '2026-01-01T10:00:04.000Z'),
        await make(user.companyId, null, '2026-01-01T10:00:05.000Z'),
      ];
      await m017.up(t.deps.db.db);

      const byId = new Map(
        (await t.deps.db.db.selectFrom('call_sessions').select(['id', 'provider_call_id']).execute()).map((r) => [
          r.id,
          r.provider_call_id,
        ]),
      );
      expect(byId.get(first.id)).toBe('CA1');
      expect(copies.map((c) => byId.get(c.id))).toEqual(copies.map((c) => `CA1#dup-${c.id}`));
      expect(byId.get(elsewhere.id)).toBe('CA1');
      expect(web.map((c) => byId.get(c.id))).toEqual([null, null]);
      // the index holds from now on; calls without a carrier id are not concerned
      const again = await make(user.companyId, 'CA1', '2026-01-01T10:01:00.000Z').catch((e: unknown) => e);
      expect(isUniqueViolation(again)).toBe(true);
      await make(user.companyId, null, '2026-01-01T10:01:01.000Z');
    } finally {
      await t.close();
    }
  });
});
