/**
 * The HTTP server of the app: Hono's node adaptor for requests, plus the call sockets (WebSocket
 * upgrades, server/call-sockets.ts: the browser's web calls and every carrier's media stream).
 * Used by main.ts and by the tests that need a real socket.
 */
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import { attachCallSockets } from './call-sockets.js';
import { webCallSocketRoute } from './modules/conversations/index.js';
import { carrierSocketRoute } from './modules/telephony/index.js';
import type { AppDeps } from './platform/deps.js';
import type { AppEnv } from './platform/http/types.js';

export interface HttpServer {
  server: Server;
  /** closes the call sockets (live calls end) */
  closeSockets(): void;
}

export function createHttpServer(app: Hono<AppEnv>, deps: AppDeps): HttpServer {
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const closeSockets = attachCallSockets(server, deps, [webCallSocketRoute(deps), carrierSocketRoute(deps)]);
  return { server, closeSockets };
}
