import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { carriers } from '../../../server/carriers/registry.js';
import {
  type Carrier,
  type CarrierRequest,
  type DialEnd,
  type PlaceCall,
  param,
  type StreamDialect,
} from '../../../server/carriers/types.js';
import { newId } from '../../../server/platform/crypto/ids.js';
import { encryptSecret } from '../../../server/platform/crypto/secrets.js';
import { CarrierStreamFake } from '../../fakes/carrier-stream.js';
import { type CallServer, waitFor } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';
import { agentOnCarrierNumber, type PhoneWorld, startPhoneWorld } from './phone-world.js';

/**
 * A third carrier plugged in through the carrier registry alone (server/carriers/registry.ts): a made-up
 * SIP gateway with its own paths, its own signature (HMAC-SHA256 of the URL and the body in
 * X-Gateway-Signature), JSON instead of XML markup, an in-memory REST API and its own media-stream protocol.
 * Nothing else of the server knows it: its webhooks and its stream are routed, its calls run on the engine
 * and are stored, because it is registered. The recipe is in docs/telephony.md.
 */

const SECRET = 'gateway-secret';

const sign = (key: string, url: string, body = '') => createHmac('sha256', key).update(`${url}\n${body}`).digest('hex');

/** The gateway's stream: JSON messages `hello`, `audio`, `played`, `digit`, `bye` in; `audio`, `label`, `flush` out. */
const GATEWAY_DIALECT: StreamDialect = {
  name: 'gateway',
  parse(msg) {
    switch (msg.event) {
      case 'hello':
        if (typeof msg.stream !== 'string' || typeof msg.call !== 'string') return { type: 'other' };
        return {
          type: 'start',
          start: { streamSid: msg.stream, callSid: msg.call, customParameters: {} },
          formatOk: msg.codec === 'PCMU/8000',
          encoding: String(msg.codec),
        };
      case 'audio':
        return typeof msg.data === 'string' ? { type: 'media', payload: msg.data } : { type: 'other' };
      case 'played':
        return typeof msg.label === 'string' ? { type: 'mark', name: msg.label } : { type: 'other' };
      case 'digit':
        return typeof msg.key === 'string' ? { type: 'dtmf', digit: msg.key } : { type: 'other' };
      case 'bye':
        return { type: 'stop' };
      default:
        return { type: 'other' };
    }
  },
  media: (stream, data) => ({ event: 'audio', stream, data }),
  mark: (stream, label) => ({ event: 'label', stream, label }),
  clear: (stream) => ({ event: 'flush', stream }),
};

const ENDS: Record<string, DialEnd> = {
  busy: { status: 'busy', reason: 'dial_busy' },
  unanswered: { status: 'no-answer', reason: 'dial_no_answer' },
};

/** What the gateway's REST API was asked (it keeps no other state). */
const api = { placed: [] as PlaceCall[], hungUp: [] as string[], redirected: [] as string[] };

const gateway: Carrier<{ key: string }> = {
  id: 'gateway',
  label: 'Gateway',
  apiUrl: 'https://api.gateway.example',
  credentialFields: ['Key'],
  keyCheck: { field: 'Key', request: (v) => ({ method: 'GET', path: '/me', headers: { authorization: `Key ${v('Key')}` } }) },
  account: (field) => {
    const key = field('Key');
    return key ? { key } : undefined;
  },
  hooks: { inbound: 'call', status: 'events', stream: 'media' },
  outboundStream: 'dial',
  verify: (account, req: CarrierRequest) => {
    const body = new URLSearchParams(req.params).toString();
    return { ok: req.header('X-Gateway-Signature') === sign(account.key, req.url, body) };
  },
  inbound: (params) => ({ from: param(params, 'From'), to: param(params, 'To'), callId: param(params, 'CallId') }),
  callIdPattern: /^gw-[0-9a-z-]+$/,
  callback: (params) => {
    const status = param(params, 'Status');
    return {
      callId: param(params, 'CallId'),
      status,
      answeredBy: '',
      voicemail: false,
      end: ENDS[status],
      completed: status === 'done',
    };
  },
  markup: {
    contentType: 'application/json',
    stream: (url, parameters) => JSON.stringify({ connect: { stream: url, parameters } }),
    sayAndHangUp: (text) => JSON.stringify({ say: text, hangup: true }),
    dial: (number) => JSON.stringify({ dial: number }),
    hangUp: () => JSON.stringify({ hangup: true }),
  },
  rest: () => ({
    async placeCall(call) {
      api.placed.push(call);
      return { callId: `gw-out-${api.placed.length}`, status: 'queued' };
    },
    async hangUp(callId) {
      api.hungUp.push(callId);
    },
    async redirect(callId) {
      api.redirected.push(callId);
    },
    callEnd: async () => undefined,
  }),
  dialect: GATEWAY_DIALECT,
};

/** The gateway's side of a media stream: `hello`, the caller's `audio` every 20 ms, labels answered `played`. */
class GatewayStream extends CarrierStreamFake {
  constructor(
    url: URL,
    key: string,
    private readonly callId: string,
  ) {
    super(url.toString(), { 'X-Gateway-Signature': sign(key, url.toString()) });
  }

  protected begin() {
    this.send({ event: 'hello', call: this.callId, stream: 'st-1', codec: 'PCMU/8000' });
  }

  protected stopMessage() {
    return { event: 'bye' };
  }

  protected sendFrame(frame: Uint8Array) {
    this.send({ event: 'audio', data: Buffer.from(frame).toString('base64') });
  }

  protected reached(label: string) {
    this.send({ event: 'played', label });
  }

  protected receive(text: string) {
    const msg = JSON.parse(text) as Record<string, unknown>;
    this.received.push(msg);
    if (msg.event === 'audio' && typeof msg.data === 'string') this.buffer.audio(new Uint8Array(Buffer.from(msg.data, 'base64')));
    else if (msg.event === 'label' && typeof msg.label === 'string') this.buffer.mark(msg.label);
    else if (msg.event === 'flush') this.buffer.clear();
    else this.violations.push(`unknown event ${String(msg.event)}`);
  }
}

describeEachDb('a third carrier through the registry alone', (kind) => {
  let world: PhoneWorld<{ url: string; close(): Promise<void> }>;
  let s: CallServer;
  let unregister: () => void;
  const NUMBER = '+14155550100';
  const CALLER = '+14155550177';

  beforeAll(() => {
    unregister = carriers.register(gateway);
  });
  afterAll(() => unregister());

  beforeEach(async () => {
    api.placed.length = 0;
    api.hungUp.length = 0;
    world = await startPhoneWorld(
      kind,
      'gateway',
      async () => ({ url: gateway.apiUrl, close: async () => {} }),
      // a carrier outside the Providers catalogue: its connection row written as Providers would
      async (srv) => {
        const at = new Date().toISOString();
        const companyId = srv.user.companyId;
        const key = encryptSecret(srv.t.deps.secrets.masterKey, SECRET, { companyId, provider: 'gateway', field: 'Key' });
        await srv.t.deps.db.db
          .insertInto('provider_connections')
          .values({
            id: newId(),
            company_id: companyId,
            provider: 'gateway',
            secrets: JSON.stringify({ Key: key }),
            created_at: at,
            updated_at: at,
          })
          .execute();
      },
    );
    s = world.s;
  });
  afterEach(() => world.close());

  const post = (path: string, form: Record<string, string>, key = SECRET) => {
    const url = `${s.baseUrl}${path}`;
    const body = new URLSearchParams(form).toString();
    return fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Gateway-Signature': sign(key, url, body) },
      body,
    });
  };

  const session = (id: string) => s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('id', '=', id).executeTakeFirst();

  it('an inbound call: its webhook and its stream are routed, the call runs on the engine, end_call hangs up through its API', async () => {
    await agentOnCarrierNumber(s, 'gateway', NUMBER, {
      message: 'Hello from the gateway.',
      editor: { functions: [{ id: 1, name: 'end_call', type: 'end_call' }] },
    });
    world.deepgram.script = ['Please hang up now.'];
    world.openai.scriptChat([{ text: 'Goodbye!', toolCalls: [{ name: 'end_call', arguments: {} }] }]);

    const form = { CallId: 'gw-in-1', From: CALLER, To: NUMBER };
    expect((await post('/api/v1/telephony/gateway/call', form, 'another-key')).status).toBe(403);
    const res = await post('/api/v1/telephony/gateway/call', form);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const { connect } = (await res.json()) as { connect: { stream: string; parameters: Record<string, string> } };
    const url = new URL(connect.stream);
    const [, , , , carrier, hook, callId, token] = url.pathname.split('/');
    expect([carrier, hook]).toEqual(['gateway', 'media']);
    expect(connect.parameters).toEqual({ call_id: callId });

    // an upgrade the gateway did not sign is refused before the token is looked at
    const forged = new GatewayStream(url, 'another-key', 'gw-in-1');
    await expect(forged.opened).rejects.toThrow();
    expect(forged.refused).toBe(403);

    const line = new GatewayStream(url, SECRET, 'gw-in-1');
    await line.opened;
    // the greeting: audio and labels, until the agent is quiet
    let seen = -1;
    await waitFor(async () => {
      const n = line.of('audio').length;
      if (n > 20 && n === seen) return true;
      seen = n;
      await new Promise((r) => setTimeout(r, 300));
      return false;
    }, 'the greeting played');
    expect(line.of('label').length).toBeGreaterThan(0);
    expect(line.of('audio')[0]).toMatchObject({ stream: 'st-1' });
    line.say();
    await waitFor(() => api.hungUp.includes('gw-in-1'), 'end_call through the gateway API');
    line.stop();
    await line.closed;
    expect(line.violations).toEqual([]);
    expect(line.playedBytes).toBeGreaterThan(1600);

    const row = await waitFor(async () => {
      const r = await session(callId as string);
      return r && r.status !== 'ongoing' && r.status !== 'registered' ? r : undefined;
    }, 'the call stored');
    expect(row.provider).toBe('gateway');
    expect(row.provider_call_id).toBe('gw-in-1');
    expect(row.type).toBe('inbound');
    expect(row.disconnection_reason).toBe('agent_hangup');
    const transcript = JSON.parse(row.transcript) as { role: string; text: string }[];
    expect(transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Hello from the gateway.'],
      ['user', 'Please hang up now.'],
      ['agent', 'Goodbye!'],
    ]);
    expect(token).toBeTruthy();
  });

  it('an outbound call is placed through its API with its own paths; its signed status callback stores a busy line', async () => {
    await agentOnCarrierNumber(s, 'gateway', NUMBER);
    const res = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: '+14155550123' },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const callId = ((await res.json()) as { data: { call_id: string } }).data.call_id;
    const [placed] = api.placed;
    expect(placed).toMatchObject({ from: NUMBER, to: '+14155550123', parleyCallId: callId });
    expect(placed?.statusUrl).toBe(`${s.baseUrl}/api/v1/telephony/gateway/events/${callId}`);
    expect(placed?.streamUrl).toMatch(new RegExp(`^ws://[^/]+/api/v1/telephony/gateway/media/${callId}/[^/]+$`));
    expect((await session(callId))?.provider_call_id).toBe('gw-out-1');

    const status = `/api/v1/telephony/gateway/events/${callId}`;
    expect((await post(status, { CallId: 'gw-out-1', Status: 'busy' }, 'another-key')).status).toBe(403);
    expect((await post(status, { CallId: 'gw-out-1', Status: 'busy' })).status).toBe(204);
    const row = await session(callId);
    expect(row).toMatchObject({ status: 'busy', disconnection_reason: 'dial_busy', provider_status: 'busy' });
  });
});
