/**
 * WebSocket upgrades of the HTTP server, routed to the call sockets given (server/http-server.ts; the routes: modules/conversations/socket-route.ts): the
 * browser's web call (`/api/v1/call/web/{call_id}/stream?token=...`, modules/conversations/socket-route.ts) and every
 * carrier's media stream (`/api/v1/telephony/{carrier}/stream/{call_id}/{token}`,
 * server/modules/telephony/stream.routes.ts: the carrier's signature is checked first, 403 without it).
 * The one-time token is checked before the socket is accepted: a bad, used or expired token is answered
 * 401 on the upgrade itself, and any other path 404. Frames are capped (maxPayload).
 *
 * Every call socket (browser or carrier) is pinged every CALL_PING_SECONDS; a peer that has not answered a
 * ping by the next one is dropped (its line closes and the call ends and is stored), so a frozen browser
 * or a dead carrier connection does not hold a line, a file descriptor and the company's concurrency for
 * ever. A company holds at most CALL_SOCKETS_PER_COMPANY call sockets open on one server: the next one is
 * answered 429 on the upgrade and its call stored as ended with `concurrency_limit_reached`.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { CONCURRENCY_LIMIT_MAX } from '@contract/billing.js';
import { CALL_RUNTIME_MESSAGES } from '@contract/call-runtime.js';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import type { CallRuntime, CallSessionRow, SocketRoute } from './modules/conversations/index.js';
import { endUnanswered } from './modules/telephony/index.js';
import type { AppDeps } from './platform/deps.js';
import { callRuntimeOf } from './voice/engine/call-runtime.js';
import { agentDocOrUndefined } from './voice/engine/plan.js';
import { WEB_FRAME_MAX_BYTES } from './voice/lines/web.js';

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

function refuse(socket: Duplex, status: number, text: string) {
  const body = JSON.stringify({ success: false, msg: text });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Not Found'}\r\n` +
      'Content-Type: application/json\r\nConnection: close\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** How often call sockets are pinged unless configured (AppConfig.callPingMs, CALL_PING_SECONDS). */
export const CALL_PING_MS = 20_000;
/** Call sockets a company may hold open on one server unless configured: as many as the highest concurrency limit. */
export const CALL_SOCKETS_PER_COMPANY = CONCURRENCY_LIMIT_MAX;

/** Pings `ws` every `ms`; a peer that has not answered the last ping by the next one is dropped. */
function heartbeat(ws: WebSocket, ms: number, dropped: () => void) {
  let answered = true;
  ws.on('pong', () => {
    answered = true;
  });
  const timer = setInterval(() => {
    if (!answered) {
      dropped();
      ws.terminate();
      return;
    }
    answered = false;
    ws.ping();
  }, ms);
  timer.unref();
  ws.once('close', () => clearInterval(timer));
}

/** One more call socket for `companyId` in `open`, or undefined at `max`; the answer releases it (once). */
function takeSocket(open: Map<string, number>, companyId: string, max: number): (() => void) | undefined {
  const n = open.get(companyId) ?? 0;
  if (n >= max) return undefined;
  open.set(companyId, n + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (open.get(companyId) ?? 1) - 1;
    if (left > 0) open.set(companyId, left);
    else open.delete(companyId);
  };
}

/** Routes upgrade requests of `server` to the call sockets. Returns a function that closes them all. */
export function attachCallSockets(server: Server, deps: AppDeps, routes: readonly SocketRoute[]): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: WEB_FRAME_MAX_BYTES + 1024 });
  /** A call whose token was taken becomes a socket: within the company's cap, pinged until it closes. */
  const accept = (
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    rt: CallRuntime,
    row: CallSessionRow,
    run: (ws: WebSocket) => void,
  ) => {
    const max = deps.config.callSocketsPerCompany ?? CALL_SOCKETS_PER_COMPANY;
    const release = takeSocket(rt.openSockets, row.company_id, max);
    if (!release) {
      deps.logger.warn('call socket refused: the company holds its most call sockets on this server', { callId: row.id });
      refuse(socket, 429, CALL_RUNTIME_MESSAGES.tooManySockets);
      void endUnanswered(deps, row, agentDocOrUndefined(row.agent), {
        status: 'ended',
        reason: 'concurrency_limit_reached',
      }).catch((e) => deps.logger.error('refused call not stored', { callId: row.id, reason: String(e) }));
      return;
    }
    // the peer may have gone while its token was checked: then no close comes any more
    if (socket.destroyed) release();
    else socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      heartbeat(ws, deps.config.callPingMs ?? CALL_PING_MS, () =>
        deps.logger.info('call socket dropped: no answer to a ping', { callId: row.id }),
      );
      run(ws);
    });
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const url = new URL(req.url ?? '/', 'http://localhost');
    let route: SocketRoute | undefined;
    let upgrade: ReturnType<SocketRoute['match']>;
    for (const r of routes) {
      upgrade = r.match(url);
      if (upgrade) {
        route = r;
        break;
      }
    }
    if (!route || !upgrade) return refuse(socket, 404, 'Not found');
    const rt = callRuntimeOf(deps);
    if (!rt) return refuse(socket, 503, 'Calls are not available on this server.');
    const header = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return typeof v === 'string' ? v : undefined;
    };
    const { name, failedText } = route;
    upgrade(rt, header).then(
      (r) => {
        if ('refuse' in r)
          return refuse(
            socket,
            r.refuse,
            r.refuse === 401 ? CALL_RUNTIME_MESSAGES.tokenInvalid : (STATUS_TEXT[r.refuse] ?? 'Forbidden'),
          );
        accept(req, socket, head, rt, r.row, r.run);
      },
      (e) => {
        deps.logger.error(`${name} upgrade failed`, { reason: e instanceof Error ? e.message : String(e) });
        refuse(socket, 503, failedText);
      },
    );
  };
  server.on('upgrade', onUpgrade);
  return () => {
    server.off('upgrade', onUpgrade);
    for (const ws of wss.clients) ws.close(1001, 'server shutting down');
    wss.close();
  };
}
