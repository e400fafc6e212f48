/**
 * The kinds of call socket the server accepts (server/call-sockets.ts routes upgrades to them): a route
 * answers, for an upgrade to one of its paths, the check that takes the call. The browser's web call is
 * this module's; every carrier's media stream is the telephony module's (modules/telephony/stream.routes.ts).
 */
import type WebSocket from 'ws';
import type { AppDeps } from '../../platform/deps.js';
import type { CallRuntime } from '../../voice/engine/call-runtime.js';
import { runWebCall, takeWebCall } from './runtime.js';
import type { CallSessionRow } from './session.repo.js';

const WEB_CALL_PATH = /^\/api\/v1\/call\/web\/([^/]+)\/stream$/;

/** A call that took its token: the row, and what runs the call on the accepted socket. */
export interface AcceptedCall {
  row: CallSessionRow;
  run(ws: WebSocket): void;
}

/**
 * A kind of call socket: `match` answers, for an upgrade to one of its paths, the check that takes the call
 * (or a status to refuse the upgrade with); undefined for another path.
 */
export interface SocketRoute {
  /** for log lines: 'web call', 'phone stream' */
  name: string;
  /** what a refused upgrade says when the check failed */
  failedText: string;
  match(
    url: URL,
  ):
    | ((rt: CallRuntime, header: (name: string) => string | undefined) => Promise<AcceptedCall | { refuse: 401 | 403 | 404 }>)
    | undefined;
}

/** The browser's web call: `/api/v1/call/web/{call_id}/stream?token=...`. */
export function webCallSocketRoute(deps: AppDeps): SocketRoute {
  return {
    name: 'web call',
    failedText: 'The call could not start. Please try again.',
    match(url) {
      const match = WEB_CALL_PATH.exec(url.pathname);
      if (!match) return undefined;
      const callId = decodeURIComponent(match[1] as string);
      const token = url.searchParams.get('token') ?? '';
      return async (rt) => {
        const row = await takeWebCall(deps, rt, callId, token);
        if (!row) return { refuse: 401 };
        return { row, run: (ws) => runWebCall(deps, rt, row, ws) };
      };
    },
  };
}
