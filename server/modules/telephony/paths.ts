/**
 * The carriers' URLs, defined once: every webhook and stream of a carrier is under
 * {PUBLIC_URL}/api/v1/telephony/{carrier id}/ and its last segments are the carrier's `hooks`
 * (server/carriers/types.ts). The webhook routes (telephony.routes.ts), the stream routes
 * (stream.routes.ts) and the URLs given to the carriers (service.ts) are all built here.
 */
import type { Carrier } from '../../carriers/types.js';
import type { AppDeps } from '../../platform/deps.js';

/** Where the telephony routes are mounted (server/compose.ts mountModules mounts them at /api/v1 + /telephony). */
export const TELEPHONY_BASE = '/api/v1/telephony';

/** The address the carriers call back (PUBLIC_URL), without a trailing slash. */
export const publicBase = (deps: AppDeps) => deps.config.publicUrl.replace(/\/+$/, '');
/** The same origin as a WebSocket address (https -> wss). */
export const publicWsBase = (deps: AppDeps) => publicBase(deps).replace(/^http/, 'ws');

/** A carrier's paths (under TELEPHONY_BASE, then the carrier's id). */
export function carrierPaths(carrier: Carrier) {
  const at = (...segments: string[]) => `${TELEPHONY_BASE}/${[carrier.id, ...segments.map(encodeURIComponent)].join('/')}`;
  const { hooks } = carrier;
  const hook = (name: string | undefined) => {
    if (!name) throw new Error(`carrier ${carrier.id} has no such webhook`);
    return name;
  };
  return {
    inbound: at(hooks.inbound),
    status: (callId: string) => at(hooks.status, callId),
    /** an imported number's status callback (its calls' ids come in the parameters) */
    numberStatus: at(hooks.status),
    stream: (callId: string, token: string) => at(hooks.stream, callId, token),
    answer: (callId: string) => at(hook(hooks.answer), callId),
    instructions: (callId: string) => at(hook(hooks.instructions), callId),
  };
}

/** The routes of a carrier's webhooks, relative to the telephony router (Hono patterns). */
export function carrierRoutes(carrier: Carrier) {
  const { id, hooks } = carrier;
  return {
    inbound: `/${id}/${hooks.inbound}`,
    status: `/${id}/${hooks.status}/:id`,
    numberStatus: `/${id}/${hooks.status}`,
    answer: hooks.answer ? `/${id}/${hooks.answer}/:id` : undefined,
    instructions: hooks.instructions ? `/${id}/${hooks.instructions}/:id` : undefined,
  };
}

/** A stream's path read back: the carrier's id, Parley's call id and the token; undefined for another path. */
export function streamPathOf(pathname: string, streamHook: (carrierId: string) => string | undefined) {
  if (!pathname.startsWith(`${TELEPHONY_BASE}/`)) return undefined;
  const parts = pathname.slice(TELEPHONY_BASE.length + 1).split('/');
  if (parts.length !== 4) return undefined;
  const [carrierId, hook, callId, token] = parts as [string, string, string, string];
  if (hook !== streamHook(carrierId) || !callId || !token) return undefined;
  try {
    return { carrierId, callId: decodeURIComponent(callId), token: decodeURIComponent(token) };
  } catch {
    return undefined;
  }
}
