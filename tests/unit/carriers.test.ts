import { describe, expect, it } from 'vitest';
import { plivo } from '../../server/carriers/plivo/index.js';
import { CarrierRegistry, carriers } from '../../server/carriers/registry.js';
import { twilio } from '../../server/carriers/twilio/index.js';
import { type Carrier, CarrierApiError } from '../../server/carriers/types.js';
import { carrierPaths, carrierRoutes, streamPathOf } from '../../server/modules/telephony/paths.js';

/** The carrier registry, the paths built from a carrier's hooks, and the REST calls no fake carrier answers. */

const recording = (status = 200, body = '{}') => {
  const sent: { url: string; init: RequestInit | undefined }[] = [];
  return {
    sent,
    api: {
      baseUrl: 'https://carrier.test',
      http: {
        fetch: async (url: string, init?: RequestInit) => {
          sent.push({ url, init });
          return new Response(body, { status });
        },
      },
    },
  };
};

describe('the carrier registry', () => {
  it('holds Twilio and Plivo; a second carrier with the same id, or an id that is not a path segment, is refused', () => {
    expect(carriers.ids()).toEqual(['twilio', 'plivo']);
    const registry = new CarrierRegistry([twilio]);
    expect(() => registry.register(twilio)).toThrow(/registered already/);
    expect(() => registry.register({ ...plivo, id: 'Bad/Id' } as Carrier)).toThrow(/path segment/);
    const unregister = registry.register(plivo);
    expect(registry.get('plivo')).toBe(plivo);
    unregister();
    expect(registry.get('plivo')).toBeUndefined();
  });
});

describe('the paths of a carrier, built from its hooks', () => {
  it("Twilio's and Plivo's URLs are the ones their consoles and the fakes know", () => {
    const t = carrierPaths(twilio);
    expect(t.inbound).toBe('/api/v1/telephony/twilio/voice');
    expect(t.status('c1')).toBe('/api/v1/telephony/twilio/status/c1');
    expect(t.stream('c1', 'tok')).toBe('/api/v1/telephony/twilio/stream/c1/tok');
    expect(() => t.answer('c1')).toThrow(/no such webhook/);
    const p = carrierPaths(plivo);
    expect([p.inbound, p.answer('c1'), p.status('c1'), p.instructions('c1')]).toEqual([
      '/api/v1/telephony/plivo/answer',
      '/api/v1/telephony/plivo/answer/c1',
      '/api/v1/telephony/plivo/status/c1',
      '/api/v1/telephony/plivo/xml/c1',
    ]);
    expect(carrierRoutes(twilio)).toEqual({
      inbound: '/twilio/voice',
      status: '/twilio/status/:id',
      numberStatus: '/twilio/status',
      answer: undefined,
      instructions: undefined,
    });
  });

  it('a stream path is read back only at the carrier’s own stream hook', () => {
    const hook = (id: string) => carriers.get(id)?.hooks.stream;
    expect(streamPathOf('/api/v1/telephony/plivo/stream/c1/t%2B1', hook)).toEqual({
      carrierId: 'plivo',
      callId: 'c1',
      token: 't+1',
    });
    expect(streamPathOf('/api/v1/telephony/plivo/status/c1/t1', hook)).toBeUndefined();
    expect(streamPathOf('/api/v1/telephony/telnyx/stream/c1/t1', hook)).toBeUndefined();
    expect(streamPathOf('/api/v1/telephony/twilio/stream/c1', hook)).toBeUndefined();
    expect(streamPathOf('/api/v1/call/web/c1/stream', hook)).toBeUndefined();
  });
});

describe('send digits', () => {
  it("Plivo plays DTMF on the call's A leg through its API (Basic auth with the Auth ID)", async () => {
    const { sent, api } = recording(202, '{"message":"digits sent"}');
    const rest = plivo.rest({ authId: 'MA123', authToken: 'secret' }, api);
    await rest.sendDigits?.('call-uuid', '12#');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe('https://carrier.test/v1/Account/MA123/Call/call-uuid/DTMF/');
    expect(sent[0]?.init?.method).toBe('POST');
    expect(JSON.parse(String(sent[0]?.init?.body))).toEqual({ digits: '12#', legs: 'aleg' });
    expect((sent[0]?.init?.headers as Record<string, string> | undefined)?.Authorization).toBe(
      `Basic ${Buffer.from('MA123:secret').toString('base64')}`,
    );
  });

  it('a refusal is a CarrierApiError; Twilio has no way that keeps the media stream, so it offers none', async () => {
    const { api } = recording(404, '{"error":"call not found"}');
    const rest = plivo.rest({ authId: 'MA123', authToken: 'secret' }, api);
    await expect(rest.sendDigits?.('gone', '1')).rejects.toBeInstanceOf(CarrierApiError);
    expect(twilio.rest({ accountSid: 'AC1', authToken: 'x' }, api).sendDigits).toBeUndefined();
  });
});
