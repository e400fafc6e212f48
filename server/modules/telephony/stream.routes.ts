/**
 * The carriers' media streams as call sockets (server/call-sockets.ts): one route for every
 * carrier of the registry, `/api/v1/telephony/{carrier}/{stream}/{call_id}/{token}` (paths.ts). The
 * carrier's signature of the upgrade is checked first (403), then the one-time token (401); the call then
 * runs on the carrier's stream (service.ts runCarrierCall).
 */
import { type CarrierRegistry, carriers as defaultCarriers } from '../../carriers/registry.js';
import type { AppDeps } from '../../platform/deps.js';
import type { SocketRoute } from '../conversations/index.js';
import { streamPathOf } from './paths.js';
import { acceptStream, runCarrierCall } from './service.js';

export function carrierSocketRoute(deps: AppDeps, registry: CarrierRegistry = defaultCarriers): SocketRoute {
  return {
    name: 'phone stream',
    failedText: 'The call could not start.',
    match(url) {
      const m = streamPathOf(url.pathname, (id) => registry.get(id)?.hooks.stream);
      const carrier = m && registry.get(m.carrierId);
      if (!m || !carrier) return undefined;
      return async (rt, header) => {
        const r = await acceptStream(deps, rt, carrier, m.callId, m.token, header);
        if ('refuse' in r) return r;
        return { row: r.row, run: (ws) => runCarrierCall(deps, rt, carrier, r.row, r.account, ws) };
      };
    },
  };
}
