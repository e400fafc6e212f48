import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { limitBody } from '../../platform/http/body-limit.js';
import type { AppEnv } from '../../platform/http/types.js';
import { plivoAnswer, plivoOutboundAnswer, plivoStatus, plivoXml } from './plivo-service.js';
import { type CarrierAnswer, twilioStatus, twilioVoice } from './service.js';

/** A carrier's form body is small (a few dozen parameters). */
const CARRIER_BODY_MAX = 32 * 1024;

/**
 * /telephony: the phone carriers' webhooks. No session: every request is authenticated by the
 * carrier's signature (server/modules/telephony/service.ts), and refused with 403 otherwise.
 * - `POST /twilio/voice`: an inbound call (answers TwiML).
 * - `POST /twilio/status/{call_id}`: status callbacks and answering-machine detection of a call.
 * - `POST /plivo/answer` (inbound), `/plivo/answer/{call_id}` (an outbound call answered),
 *   `/plivo/status/{call_id}` (hangup and machine detection), `/plivo/xml/{call_id}` (transfer, voicemail).
 * The media streams are WebSockets (server/call-sockets.ts).
 */
export function telephonyRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', limitBody(CARRIER_BODY_MAX));
  const answer = (a: CarrierAnswer) =>
    new Response(a.status === 204 ? null : a.body, { status: a.status, headers: { 'Content-Type': a.contentType } });
  const queryOf = (url: string) => {
    const i = url.indexOf('?');
    return i < 0 ? '' : url.slice(i);
  };

  r.post('/twilio/voice', async (c) =>
    answer(await twilioVoice(deps, await c.req.text(), queryOf(c.req.url), c.req.header('X-Twilio-Signature'))),
  );

  r.post('/twilio/status/:id', async (c) =>
    answer(await twilioStatus(deps, c.req.param('id'), await c.req.text(), c.req.header('X-Twilio-Signature'))),
  );

  const plivoHeaders = (c: { req: { header(name: string): string | undefined } }) => ({
    signature: c.req.header('X-Plivo-Signature-V3'),
    nonce: c.req.header('X-Plivo-Signature-V3-Nonce'),
  });

  r.post('/plivo/answer', async (c) => answer(await plivoAnswer(deps, await c.req.text(), queryOf(c.req.url), plivoHeaders(c))));

  r.post('/plivo/answer/:id', async (c) =>
    answer(await plivoOutboundAnswer(deps, c.req.param('id'), await c.req.text(), queryOf(c.req.url), plivoHeaders(c))),
  );

  r.post('/plivo/status/:id', async (c) =>
    answer(await plivoStatus(deps, c.req.param('id'), await c.req.text(), plivoHeaders(c))),
  );

  r.post('/plivo/xml/:id', async (c) =>
    answer(await plivoXml(deps, c.req.param('id'), await c.req.text(), queryOf(c.req.url), plivoHeaders(c))),
  );

  return r;
}
