import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolServices } from '../../../server/modules/conversations/tool-services.js';
import { MessageRefused, sendText } from '../../../server/modules/telephony/index.js';
import { newId } from '../../../server/platform/crypto/ids.js';
import { smsTool } from '../../../server/voice/tools/sms/index.js';
import { ToolError } from '../../../server/voice/tools/types.js';
import type { AgentFunctionOf } from '../../../src/api/contract/agent/functions.js';
import { PlivoFake } from '../../fakes/plivo.js';
import { TwilioFake } from '../../fakes/twilio.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { CALLER_NUMBER, callOf, only, PARLEY_NUMBER, quietDeps, recordingServices, toolEnv } from './messages-env.js';

const smsFn = (over: Partial<AgentFunctionOf<'send_sms'>> = {}): AgentFunctionOf<'send_sms'> => ({
  id: 1,
  name: 'text_caller',
  description: '',
  type: 'send_sms',
  speak_during: '',
  timeout_ms: 8000,
  template: '',
  ...over,
});

/** The send_sms kind run directly: the numbers it picks, the template, the refusals. */
describe('send_sms, the tool', () => {
  it('offers the model `text` and an optional `to`; an inbound call texts the caller from the number they dialled', async () => {
    const { services, asked } = recordingServices();
    const tool = only(await smsTool.prepare(smsFn(), toolEnv({ call: callOf('inbound') })));
    expect(tool.spec.name).toBe('text_caller');
    expect(tool.spec.parameters).toMatchObject({ type: 'object', required: ['text'] });
    expect(Object.keys(tool.spec.parameters.properties as object)).toEqual(['text', 'to']);
    const out = await tool.run({ text: '  Your booking is confirmed.  ' }, toolEnv({ call: callOf('inbound'), services }));
    expect(out).toEqual({ ok: true, result: `The text message was sent to ${CALLER_NUMBER}.` });
    expect(asked).toEqual([
      { companyId: 'company-1', from: PARLEY_NUMBER, to: CALLER_NUMBER, text: 'Your booking is confirmed.' },
    ]);
  });

  it('an outbound call texts the person called from the number it was placed from; `to` sends elsewhere', async () => {
    const { services, asked } = recordingServices();
    const tool = only(await smsTool.prepare(smsFn(), toolEnv({ call: callOf('outbound') })));
    await tool.run({ text: 'Hi' }, toolEnv({ call: callOf('outbound'), services }));
    await tool.run({ text: 'Hi', to: '+1 (312) 555-0199' }, toolEnv({ call: callOf('outbound'), services }));
    expect(asked.map((a) => [a.from, a.to])).toEqual([
      [PARLEY_NUMBER, CALLER_NUMBER],
      [PARLEY_NUMBER, '+13125550199'],
    ]);
  });

  it('a web call or a chat has no number: the model is told, nothing is sent', async () => {
    for (const kind of ['web_call', 'chat'] as const) {
      const { services, asked } = recordingServices();
      const tool = only(await smsTool.prepare(smsFn(), toolEnv({ call: callOf(kind) })));
      expect(await tool.run({ text: 'Hi' }, toolEnv({ call: callOf(kind), services }))).toEqual({
        ok: false,
        result: 'Text messages can only be sent during phone calls',
      });
      expect(asked).toEqual([]);
    }
  });

  it('a template is filled from the call’s variables first, the model gives only the rest', async () => {
    const fn = smsFn({ template: 'Hi {{name}}, your visit is {{when}}. Call {{to_number}} to change it.' });
    const call = callOf('inbound', { name: 'Ana' });
    const tool = only(await smsTool.prepare(fn, toolEnv({ call })));
    // the model is asked for `when` only (name and to_number are the call's)
    expect(tool.spec.parameters).toMatchObject({
      required: ['variables'],
      properties: { variables: { required: ['when'], properties: { when: { type: 'string' } } } },
    });
    expect((tool.spec.parameters.properties as Record<string, unknown>).text).toBeUndefined();
    const { services, asked } = recordingServices();
    const missing = await tool.run({}, toolEnv({ call, services }));
    expect(missing).toEqual({ ok: false, result: 'Give values for: when.' });
    const out = await tool.run({ variables: { when: 'Monday at 10', name: 'Mallory' } }, toolEnv({ call, services }));
    expect(out.ok).toBe(true);
    expect(asked.map((a) => a.text)).toEqual([`Hi Ana, your visit is Monday at 10. Call ${PARLEY_NUMBER} to change it.`]);
  });

  it('a `to` that is not a phone number, an empty text, and a refusal all go back to the model in words', async () => {
    const tool = only(await smsTool.prepare(smsFn(), toolEnv({ call: callOf('inbound') })));
    const { services, asked } = recordingServices(async () => {
      throw new ToolError('Twilio did not send the text message: the number opted out.');
    });
    const env = toolEnv({ call: callOf('inbound'), services });
    expect(await tool.run({ text: 'Hi', to: 'my office' }, env)).toMatchObject({
      ok: false,
      result: expect.stringContaining('+1415'),
    });
    expect(await tool.run({ text: '   ' }, env)).toEqual({ ok: false, result: 'Give the text of the message.' });
    expect(asked).toEqual([]);
    expect(await tool.run({ text: 'Hi' }, env)).toEqual({
      ok: false,
      result: 'Twilio did not send the text message: the number opted out.',
    });
    // a failure that is not a refusal is not described to the model
    const broken = recordingServices(async () => {
      throw new Error('socket hang up at 10.0.0.3');
    });
    expect(await tool.run({ text: 'Hi' }, toolEnv({ call: callOf('inbound'), services: broken.services }))).toEqual({
      ok: false,
      result: 'The text message could not be sent.',
    });
  });
});

/** A phone number of the company (`provider`'s). */
async function companyNumber(t: TestApp, companyId: string, phone: string, provider: string) {
  const at = new Date().toISOString();
  await t.deps.db.db
    .insertInto('phone_numbers')
    .values({
      id: newId(),
      company_id: companyId,
      account_id: null,
      origin: 'company',
      phone_number: phone,
      provider,
      phone_number_type: 'local',
      phone_number_pretty: phone,
      area_code: null,
      nickname: null,
      termination_uri: `acme.${provider}.example`,
      assistant_id: null,
      inbound_agent_id: null,
      outbound_agent_id: null,
      assigned_at: at,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

async function connect(t: TestApp, token: string, name: string, keys: [string, string][]) {
  const res = await t.req('POST', '/api/v1/provider/values', {
    token,
    body: { name, keys: keys.map(([n, value]) => ({ name: n, value })) },
  });
  expect(res.status).toBe(201);
}

const signal = () => new AbortController().signal;

/** The telephony module's sendText through the fake carriers, and the tool end to end through the app's services. */
describeEachDb('text messages from a company’s numbers', (kind) => {
  const t = useTestApp(kind);
  let twilio: TwilioFake;
  let plivo: PlivoFake;
  const TWILIO_NUMBER = '+14155550100';
  const PLIVO_NUMBER = '+14155550101';

  beforeEach(async () => {
    [twilio, plivo] = await Promise.all([TwilioFake.start(), PlivoFake.start()]);
    t().deps.config.telephonyUrls = { twilio: twilio.url, plivo: plivo.url };
    twilio.numbers.add(TWILIO_NUMBER);
    plivo.numbers.add(PLIVO_NUMBER);
  });
  afterEach(() => Promise.all([twilio.close(), plivo.close()]));

  async function company(carriers: ('twilio' | 'plivo')[] = ['twilio', 'plivo']) {
    const user = await signUp(t());
    await companyNumber(t(), user.companyId, TWILIO_NUMBER, 'twilio');
    await companyNumber(t(), user.companyId, PLIVO_NUMBER, 'plivo');
    if (carriers.includes('twilio'))
      await connect(t(), user.token, 'twilio', [
        ['Account SID', twilio.accountSid],
        ['Auth Token', twilio.authToken],
      ]);
    if (carriers.includes('plivo'))
      await connect(t(), user.token, 'plivo', [
        ['Auth ID', plivo.authId],
        ['Auth Token', plivo.authToken],
      ]);
    return user;
  }

  it('send_sms in an inbound Twilio call: the Messages resource gets From (the number dialled), To (the caller) and Body', async () => {
    const { companyId } = await company();
    const call = callOf('inbound');
    call.to_number = TWILIO_NUMBER;
    const tool = only(await smsTool.prepare(smsFn(), toolEnv({ call })));
    const env = toolEnv({ call, companyId, deps: t().deps, services: toolServices(t().deps) });
    const out = await tool.run({ text: 'See you Monday at 10.' }, env);
    expect(out).toEqual({ ok: true, result: `The text message was sent to ${CALLER_NUMBER}.` });
    expect(twilio.messages).toEqual([
      { sid: expect.stringMatching(/^SM[0-9a-f]{32}$/), from: TWILIO_NUMBER, to: CALLER_NUMBER, body: 'See you Monday at 10.' },
    ]);
    expect(twilio.refusals).toEqual([]);
  });

  it('from a Plivo number: the Message API gets src, dst and text', async () => {
    const { companyId } = await company();
    const sent = await sendText(t().deps, companyId, { from: PLIVO_NUMBER, to: CALLER_NUMBER, text: 'Hello' }, signal());
    expect(sent.provider).toBe('plivo');
    expect(plivo.messages).toEqual([{ uuid: sent.id, src: PLIVO_NUMBER, dst: CALLER_NUMBER, text: 'Hello' }]);
    expect(plivo.refusals).toEqual([]);
    plivo.messageRefusals.set('+14155550188', { status: 400, error: 'invalid_parameter: dst is not a mobile number' });
    const refused = await sendText(
      t().deps,
      companyId,
      { from: PLIVO_NUMBER, to: '+14155550188', text: 'Hello' },
      signal(),
    ).catch((e: Error) => e.message);
    expect(refused).toBe(
      'Plivo did not send the text message: Plivo answered 400. invalid_parameter: dst is not a mobile number',
    );
    // Plivo's own check of src: a number the company has but the Plivo account does not
    plivo.numbers.delete(PLIVO_NUMBER);
    expect(
      await sendText(t().deps, companyId, { from: PLIVO_NUMBER, to: CALLER_NUMBER, text: 'Hello' }, signal()).catch(
        (e: Error) => e.message,
      ),
    ).toContain('is not a number of this account');
    expect(plivo.messages).toHaveLength(1);
  });

  it('a carrier that is not connected, a wrong token, a number the carrier refuses: refusals in words, nothing sent', async () => {
    const { companyId, token } = await company(['twilio']);
    const refusal = (from: string, to = CALLER_NUMBER) =>
      sendText(t().deps, companyId, { from, to, text: 'Hello' }, signal()).then(
        () => undefined,
        (e: unknown) => e,
      );
    const notConnected = await refusal(PLIVO_NUMBER);
    expect(notConnected).toBeInstanceOf(MessageRefused);
    expect((notConnected as Error).message).toBe('Plivo is not connected on the Providers page, so no text message can be sent.');

    // a wrong Auth Token saved while Plivo could not be reached to try it (Connect refuses one it can try)
    t().deps.config.telephonyUrls = { twilio: twilio.url, plivo: 'http://127.0.0.1:9' };
    await connect(t(), token, 'plivo', [
      ['Auth ID', plivo.authId],
      ['Auth Token', 'not-the-token'],
    ]);
    t().deps.config.telephonyUrls = { twilio: twilio.url, plivo: plivo.url };
    const unauthorised = await refusal(PLIVO_NUMBER);
    expect((unauthorised as Error).message).toBe(
      'Plivo did not send the text message: Plivo refused the Auth ID or Auth Token. Authentication failed',
    );
    expect(JSON.stringify(unauthorised)).not.toContain('not-the-token');

    twilio.messageRefusals.set('+14155550188', {
      code: 21610,
      message: 'Attempt to send to unsubscribed recipient',
    });
    expect(((await refusal(TWILIO_NUMBER, '+14155550188')) as Error).message).toBe(
      'Twilio did not send the text message: Twilio answered 400. Attempt to send to unsubscribed recipient',
    );
    // the carrier's own check of From: a number the company has but the Twilio account does not
    twilio.numbers.delete(TWILIO_NUMBER);
    expect(((await refusal(TWILIO_NUMBER)) as Error).message).toContain('is not a valid, SMS-capable inbound phone number');
    expect(twilio.messages).toEqual([]);
    expect(plivo.messages).toEqual([]);
  });

  it('only from the company’s own numbers, only to destinations it may call, never an odd number', async () => {
    const { companyId } = await company();
    const other = await signUp(t());
    await companyNumber(t(), other.companyId, '+14155550155', 'twilio');
    twilio.numbers.add('+14155550155');
    const refusal = (from: string, to: string) =>
      sendText(t().deps, companyId, { from, to, text: 'Hello' }, signal()).then(
        () => 'sent',
        (e: Error) => e.message,
      );
    expect(await refusal('+14155550155', CALLER_NUMBER)).toBe(
      'The number to send from is not one of this company’s phone numbers.',
    );
    expect(await refusal(TWILIO_NUMBER, '+19005550123')).toBe(
      'Messages to +1900… are not allowed: premium-rate numbers are blocked.',
    );
    expect(await refusal(TWILIO_NUMBER, '+442071838750')).toMatch(
      /^Messages to \+44… are not allowed: .*not in this company's allowed countries/,
    );
    expect(await refusal(TWILIO_NUMBER, '+1415555<+14155550188')).toMatch(/is not a phone number in international format/);
    expect(
      await sendText(t().deps, companyId, { from: TWILIO_NUMBER, to: CALLER_NUMBER, text: 'x'.repeat(1601) }, signal()).catch(
        (e: Error) => e.message,
      ),
    ).toBe('The text message is longer than 1600 characters.');
    expect(twilio.messages).toEqual([]);
  });

  it('the app’s tool services pass a refusal on in its words, and hide any other failure', async () => {
    const { companyId } = await company();
    const services = toolServices(t().deps);
    const refused = await services
      .sendSms(companyId, { from: '+14155550999', to: CALLER_NUMBER, text: 'Hi' }, signal())
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ToolError);
    expect((refused as Error).message).toBe('The number to send from is not one of this company’s phone numbers.');
    const none = toolServices({ ...quietDeps(), texts: undefined });
    expect(
      await none
        .sendSms(companyId, { from: TWILIO_NUMBER, to: CALLER_NUMBER, text: 'Hi' }, signal())
        .catch((e: Error) => e.message),
    ).toBe('Text messages cannot be sent from this server.');
    const broken = toolServices({
      ...quietDeps(),
      texts: {
        send: async () => {
          throw new Error('connect ECONNREFUSED 10.1.2.3:443');
        },
      },
    });
    expect(
      await broken
        .sendSms(companyId, { from: TWILIO_NUMBER, to: CALLER_NUMBER, text: 'Hi' }, signal())
        .catch((e: Error) => e.message),
    ).toBe('The text message could not be sent.');
  });
});
