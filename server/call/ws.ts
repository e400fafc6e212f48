/**
 * WebSocket upgrades of the HTTP server: `/api/v1/call/web/{call_id}/stream?token=...` (the browser's web
 * call), `/api/v1/telephony/twilio/stream/{call_id}/{token}` and `/api/v1/telephony/plivo/stream/{call_id}/{token}`
 * (a phone call's media stream: the carrier's signature, X-Twilio-Signature or X-Plivo-Signature-V3 with a
 * nonce never seen before, is checked first, 403 without it). The one-time token is checked before the
 * socket is accepted: a bad, used or expired token is
 * answered 401 on the upgrade itself, and any other path 404. Frames are capped (maxPayload).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { CALL_RUNTIME_MESSAGES } from '../../src/api/contract/call-runtime.js';
import type { AppDeps } from '../lib/deps.js';
import { acceptPlivoStream, runPlivoCall } from '../telephony/plivo-service.js';
import { acceptTwilioStream, runTwilioCall } from '../telephony/service.js';
import { runWebCall, takeWebCall } from './service.js';
import { WEB_FRAME_MAX_BYTES } from './transports/web.js';

const WEB_CALL_PATH = /^\/api\/v1\/call\/web\/([^/]+)\/stream$/;
const TWILIO_STREAM_PATH = /^\/api\/v1\/telephony\/twilio\/stream\/([^/]+)\/([^/]+)$/;
const PLIVO_STREAM_PATH = /^\/api\/v1\/telephony\/plivo\/stream\/([^/]+)\/([^/]+)$/;

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
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

/** Routes upgrade requests of `server` to the call sockets. Returns a function that closes them all. */
export function attachCallSockets(server: Server, deps: AppDeps): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: WEB_FRAME_MAX_BYTES + 1024 });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const url = new URL(req.url ?? '/', 'http://localhost');
    const twilio = TWILIO_STREAM_PATH.exec(url.pathname);
    if (twilio) {
      const rt = deps.calls;
      if (!rt) return refuse(socket, 503, 'Calls are not available on this server.');
      const signature = req.headers['x-twilio-signature'];
      acceptTwilioStream(
        deps,
        rt,
        decodeURIComponent(twilio[1] as string),
        decodeURIComponent(twilio[2] as string),
        typeof signature === 'string' ? signature : undefined,
      ).then(
        (r) => {
          if ('refuse' in r) return refuse(socket, r.refuse, r.refuse === 403 ? 'Forbidden' : CALL_RUNTIME_MESSAGES.tokenInvalid);
          wss.handleUpgrade(req, socket, head, (ws) => runTwilioCall(deps, rt, r.row, r.account, ws));
        },
        (e) => {
          deps.logger.error('phone stream upgrade failed', { reason: e instanceof Error ? e.message : String(e) });
          refuse(socket, 503, 'The call could not start.');
        },
      );
      return;
    }
    const plivo = PLIVO_STREAM_PATH.exec(url.pathname);
    if (plivo) {
      const rt = deps.calls;
      if (!rt) return refuse(socket, 503, 'Calls are not available on this server.');
      const header = (name: string) => {
        const v = req.headers[name];
        return typeof v === 'string' ? v : undefined;
      };
      acceptPlivoStream(deps, rt, decodeURIComponent(plivo[1] as string), decodeURIComponent(plivo[2] as string), {
        signature: header('x-plivo-signature-v3'),
        nonce: header('x-plivo-signature-v3-nonce'),
      }).then(
        (r) => {
          if ('refuse' in r) return refuse(socket, r.refuse, r.refuse === 403 ? 'Forbidden' : CALL_RUNTIME_MESSAGES.tokenInvalid);
          wss.handleUpgrade(req, socket, head, (ws) => runPlivoCall(deps, rt, r.row, r.account, ws));
        },
        (e) => {
          deps.logger.error('phone stream upgrade failed', { reason: e instanceof Error ? e.message : String(e) });
          refuse(socket, 503, 'The call could not start.');
        },
      );
      return;
    }
    const match = WEB_CALL_PATH.exec(url.pathname);
    if (!match) return refuse(socket, 404, 'Not found');
    const rt = deps.calls;
    if (!rt) return refuse(socket, 503, 'Calls are not available on this server.');
    const callId = decodeURIComponent(match[1] as string);
    const token = url.searchParams.get('token') ?? '';
    takeWebCall(deps, rt, callId, token).then(
      (row) => {
        if (!row) return refuse(socket, 401, CALL_RUNTIME_MESSAGES.tokenInvalid);
        wss.handleUpgrade(req, socket, head, (ws) => runWebCall(deps, rt, row, ws));
      },
      (e) => {
        deps.logger.error('web call upgrade failed', { reason: e instanceof Error ? e.message : String(e) });
        refuse(socket, 503, 'The call could not start. Please try again.');
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
