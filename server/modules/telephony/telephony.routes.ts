import { Hono } from 'hono';
import { type CarrierRegistry, carriers as defaultCarriers } from '../../carriers/registry.js';
import type { Carrier } from '../../carriers/types.js';
import type { AppDeps } from '../../platform/deps.js';
import { limitBody } from '../../platform/http/body-limit.js';
import type { AppEnv } from '../../platform/http/types.js';
import { carrierPaths, carrierRoutes } from './paths.js';
import {
  type CarrierAnswer,
  callInstructions,
  callStatus,
  inboundCall,
  numberStatus,
  outboundAnswer,
  type WebhookRequest,
} from './service.js';

/** A carrier's form body is small (a few dozen parameters). */
const CARRIER_BODY_MAX = 32 * 1024;

/**
 * /telephony: the phone carriers' webhooks, for every carrier of the registry (server/carriers/registry.ts),
 * at the paths its `hooks` name (paths.ts). No session: every request is authenticated by the carrier's
 * signature (server/modules/telephony/service.ts), and refused with 403 otherwise.
 * - `POST /{carrier}/{inbound}`: an inbound call (answers the carrier's markup);
 * - `POST /{carrier}/{status}/{call_id}`: status callbacks and answering-machine detection of a call;
 * - `POST /{carrier}/{status}`: the status callback of a number imported from the carrier (the call is found
 *   by the carrier's id of it);
 * - `POST /{carrier}/{answer}/{call_id}`: an outbound call answered (carriers that learn the stream then);
 * - `POST /{carrier}/{instructions}/{call_id}`: what a live call is redirected to (transfer, voicemail).
 * Twilio's are `/twilio/voice` and `/twilio/status/{call_id}`; Plivo's `/plivo/answer`,
 * `/plivo/answer/{call_id}`, `/plivo/status/{call_id}`, `/plivo/xml/{call_id}`. The media streams are
 * WebSockets (stream.routes.ts).
 */
export function telephonyRoutes(deps: AppDeps, registry: CarrierRegistry = defaultCarriers) {
  const r = new Hono<AppEnv>();
  r.use('*', limitBody(CARRIER_BODY_MAX));
  const answer = (a: CarrierAnswer) =>
    new Response(a.status === 204 ? null : a.body, { status: a.status, headers: { 'Content-Type': a.contentType } });
  type Ctx = { req: { url: string; text(): Promise<string>; header(name: string): string | undefined } };
  /** the request as the carrier signed it: the carrier's path (paths.ts) and the query it called */
  const request = async (c: Ctx, path: string): Promise<WebhookRequest> => {
    const i = c.req.url.indexOf('?');
    return { path: i < 0 ? path : path + c.req.url.slice(i), body: await c.req.text(), header: (n) => c.req.header(n) };
  };
  const mount = (carrier: Carrier) => {
    const paths = carrierPaths(carrier);
    const routes = carrierRoutes(carrier);
    r.post(routes.inbound, async (c) => answer(await inboundCall(deps, carrier, await request(c, paths.inbound))));
    r.post(routes.status, async (c) => {
      const id = c.req.param('id') ?? '';
      return answer(await callStatus(deps, carrier, id, await request(c, paths.status(id))));
    });
    r.post(routes.numberStatus, async (c) => answer(await numberStatus(deps, carrier, await request(c, paths.numberStatus))));
    if (routes.answer)
      r.post(routes.answer, async (c) => {
        const id = c.req.param('id') ?? '';
        return answer(await outboundAnswer(deps, carrier, id, await request(c, paths.answer(id))));
      });
    if (routes.instructions)
      r.post(routes.instructions, async (c) => {
        const id = c.req.param('id') ?? '';
        return answer(await callInstructions(deps, carrier, id, await request(c, paths.instructions(id))));
      });
  };
  for (const carrier of registry.all()) mount(carrier);
  return r;
}
