import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { providerAccess } from '../../../server/modules/providers/index.js';
import { realHttpClient } from '../../../server/platform/deps.js';
import { parseEnv } from '../../../server/platform/env.js';
import type { ProviderAccess } from '../../../server/voice/providers/types.js';
import { checkWhatsAppCard, WHATSAPP_GRAPH_VERSION } from '../../../server/voice/tools/whatsapp/cloud-api.js';
import { whatsappTool } from '../../../server/voice/tools/whatsapp/index.js';
import type { AgentFunctionOf } from '../../../src/api/contract/agent/functions.js';
import { WhatsAppFake } from '../../fakes/whatsapp.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, useTestApp } from '../helpers.js';
import { CALLER_NUMBER, callOf, only, toolEnv } from './messages-env.js';

const waFn = (over: Partial<AgentFunctionOf<'send_whatsapp'>> = {}): AgentFunctionOf<'send_whatsapp'> => ({
  id: 2,
  name: 'whatsapp_confirmation',
  description: '',
  type: 'send_whatsapp',
  speak_during: '',
  timeout_ms: 8000,
  template_name: 'appointment_confirmation',
  language: 'en_US',
  ...over,
});

const accessOf = (fake: WhatsAppFake, over: { id?: string; token?: string } = {}): ProviderAccess => ({
  apiKey: over.token ?? fake.accessToken,
  baseUrl: fake.url,
  publicOnly: false,
  fields: { 'Phone Number ID': over.id ?? fake.phoneNumberId, 'Access Token': over.token ?? fake.accessToken },
});

/** The send_whatsapp kind run directly against the fake Cloud API. */
describe('send_whatsapp, the tool', () => {
  let wa: WhatsAppFake;
  beforeEach(async () => {
    wa = await WhatsAppFake.start();
    wa.templates.push({ name: 'appointment_confirmation', language: 'en_US', bodyParameters: 2 });
  });
  afterEach(() => wa.close());

  const run = async (args: Record<string, unknown>, over: Parameters<typeof toolEnv>[0]) => {
    const tool = only(await whatsappTool.prepare(waFn(), toolEnv(over)));
    return tool.run(args, toolEnv(over));
  };

  it('sends the template with the model’s body values to the caller, on the pinned Graph API version', async () => {
    const tool = only(await whatsappTool.prepare(waFn(), toolEnv({ call: callOf('inbound') })));
    expect(tool.spec.parameters).toMatchObject({ type: 'object', properties: { parameters: { type: 'array' } } });
    const out = await tool.run(
      { parameters: ['Ana', 'Monday at 10'] },
      toolEnv({ call: callOf('inbound'), keys: { whatsapp: accessOf(wa) } }),
    );
    expect(out).toEqual({ ok: true, result: 'The WhatsApp message (template appointment_confirmation) was sent to the caller.' });
    expect(wa.sent).toEqual([
      {
        id: expect.stringMatching(/^wamid\./),
        version: WHATSAPP_GRAPH_VERSION,
        to: CALLER_NUMBER.slice(1),
        name: 'appointment_confirmation',
        language: 'en_US',
        parameters: ['Ana', 'Monday at 10'],
      },
    ]);
    // an outbound call's caller is the person called
    const outbound = await run({ parameters: ['Bo', 'Tuesday'] }, { call: callOf('outbound'), keys: { whatsapp: accessOf(wa) } });
    expect(outbound.ok).toBe(true);
    expect(wa.sent[1]?.to).toBe(CALLER_NUMBER.slice(1));
    expect(wa.refusals).toEqual([]);
  });

  it('a web call or a chat has no caller number; a card not connected is said so', async () => {
    for (const kind of ['web_call', 'chat'] as const)
      expect(await run({ parameters: ['a', 'b'] }, { call: callOf(kind), keys: { whatsapp: accessOf(wa) } })).toEqual({
        ok: false,
        result: 'WhatsApp messages can only be sent during phone calls',
      });
    expect(await run({ parameters: ['a', 'b'] }, { call: callOf('inbound') })).toEqual({
      ok: false,
      result: 'WhatsApp is not connected on the Providers page, so no WhatsApp message can be sent.',
    });
    expect(wa.sent).toEqual([]);
  });

  it('WhatsApp’s refusals reach the model in words, never the token', async () => {
    const call = callOf('inbound');
    const wrongToken = await run({ parameters: ['a', 'b'] }, { call, keys: { whatsapp: accessOf(wa, { token: 'EAAGwrong' }) } });
    expect(wrongToken).toEqual({ ok: false, result: 'WhatsApp refused the access token.' });
    const unknownNumber = await run({ parameters: ['a', 'b'] }, { call, keys: { whatsapp: accessOf(wa, { id: '123456' }) } });
    expect(unknownNumber.ok).toBe(false);
    expect(unknownNumber.result).toMatch(
      /^WhatsApp answered 400: Unsupported post request\. Object with ID '123456' does not exist/,
    );
    const tooFew = await run({ parameters: ['only one'] }, { call, keys: { whatsapp: accessOf(wa) } });
    expect(tooFew.result).toMatch(/^WhatsApp answered 400: \(#132000\) Number of parameters does not match/);
    const tool = only(await whatsappTool.prepare(waFn({ template_name: 'no_such_template' }), toolEnv({ call })));
    const unknownTemplate = await tool.run({ parameters: [] }, toolEnv({ call, keys: { whatsapp: accessOf(wa) } }));
    expect(unknownTemplate.result).toMatch(/^WhatsApp answered 404: \(#132001\) Template name does not exist/);
    wa.allowedRecipients = new Set(['4915112345678']);
    const notAllowed = await run({ parameters: ['a', 'b'] }, { call, keys: { whatsapp: accessOf(wa) } });
    expect(notAllowed.result).toContain('(#131030) Recipient phone number not in allowed list');
    expect(await run({ parameters: 'Ana' }, { call, keys: { whatsapp: accessOf(wa) } })).toMatchObject({ ok: false });
    for (const r of [wrongToken, unknownNumber, tooFew, unknownTemplate, notAllowed]) expect(r.result).not.toContain('EAAG');
    expect(wa.sent).toEqual([]);
    expect(wa.refusals.map((r) => r.code)).toEqual([190, 100, 132000, 132001, 131030]);
  });

  it('the fake refuses what the Cloud API refuses: another version path, no messaging_product, a free-text message', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${wa.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${wa.accessToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code?: number } } }));
    const template = { name: 'appointment_confirmation', language: { code: 'en_US' } };
    const good = { messaging_product: 'whatsapp', to: '14155550177', type: 'template', template };
    expect((await post(`/${wa.phoneNumberId}/messages`, good)).body.error?.code).toBe(2500);
    expect((await post(`/v21.0/${wa.phoneNumberId}/messages`, { ...good, messaging_product: undefined })).body.error?.code).toBe(
      100,
    );
    expect(
      (await post(`/v21.0/${wa.phoneNumberId}/messages`, { ...good, type: 'text', text: { body: 'hi' } })).body.error?.code,
    ).toBe(100);
    expect(
      (
        await post(`/v21.0/${wa.phoneNumberId}/messages`, {
          ...good,
          template: { ...template, components: [{ type: 'body', parameters: [{ type: 'text', text: '' }] }] },
        })
      ).body.error?.code,
    ).toBe(100);
    expect(wa.sent).toEqual([]);
  });

  it('WHATSAPP_API_URL moves the Cloud API’s origin (normalised); a bad one stops the server', () => {
    expect(parseEnv({ WHATSAPP_API_URL: 'http://127.0.0.1:9/' }).WHATSAPP_API_URL).toBe('http://127.0.0.1:9');
    expect(parseEnv({}).WHATSAPP_API_URL).toBeUndefined();
    expect(() => parseEnv({ WHATSAPP_API_URL: 'graph' })).toThrow('Invalid environment variable WHATSAPP_API_URL');
  });

  it('the card’s check reads the number its Phone Number ID names with its token', async () => {
    const signal = new AbortController().signal;
    const good = await checkWhatsAppCard(
      realHttpClient,
      wa.url,
      { phoneNumberId: wa.phoneNumberId, accessToken: wa.accessToken },
      signal,
    );
    expect(good).toEqual({
      ok: true,
      msg: `WhatsApp accepted the Phone Number ID and Access Token of ${wa.displayPhoneNumber} (Acme Clinic).`,
    });
    const bad = await checkWhatsAppCard(
      realHttpClient,
      wa.url,
      { phoneNumberId: wa.phoneNumberId, accessToken: 'EAAGnope' },
      signal,
    );
    expect(bad).toEqual({ ok: false, msg: 'WhatsApp refused the access token.' });
    expect(wa.lookups).toBe(1);
  });
});

/** The company's WhatsApp card, decrypted for a call: both fields, the base the server points at. */
describeEachDb('send_whatsapp with the company’s WhatsApp card', (kind) => {
  const t = useTestApp(kind);
  let wa: WhatsAppFake;
  beforeEach(async () => {
    wa = await WhatsAppFake.start();
    wa.templates.push({ name: 'appointment_confirmation', language: 'en_US', bodyParameters: 1 });
    t().deps.config.providerUrls = { ...t().deps.config.providerUrls, whatsapp: wa.url };
  });
  afterEach(() => wa.close());

  it('the stored Phone Number ID and Access Token reach the Cloud API; another company’s card is never used', async () => {
    const user = await signUp(t());
    const other = await signUp(t());
    const res = await t().req('POST', '/api/v1/provider/values', {
      token: user.token,
      body: {
        name: 'whatsapp',
        keys: [
          { name: 'Phone Number ID', value: wa.phoneNumberId },
          { name: 'Access Token', value: wa.accessToken },
        ],
      },
    });
    expect(res.status).toBe(201);
    const access = await providerAccess(t().deps, user.companyId, 'whatsapp', 'WhatsApp messages');
    expect(access).toMatchObject({ apiKey: wa.accessToken, baseUrl: wa.url, publicOnly: false });
    expect(access.fields).toEqual({ 'Phone Number ID': wa.phoneNumberId, 'Access Token': wa.accessToken });
    const call = callOf('inbound');
    const tool = only(await whatsappTool.prepare(waFn(), toolEnv({ call })));
    const out = await tool.run(
      { parameters: ['Monday at 10'] },
      toolEnv({ call, companyId: user.companyId, deps: t().deps, keys: { whatsapp: access } }),
    );
    expect(out.ok).toBe(true);
    expect(wa.sent.map((s) => s.parameters)).toEqual([['Monday at 10']]);
    await expect(providerAccess(t().deps, other.companyId, 'whatsapp', 'WhatsApp messages')).rejects.toThrow(/WhatsApp/);
  });
});
