/**
 * A real HTTP server (app + call sockets) on 127.0.0.1 with a fresh database and the call engine, for
 * the call tests: chats over the event stream, web calls over a real WebSocket.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import WebSocket from 'ws';
import { createHttpServer } from '../../../server/http-server.js';
import { type CallRuntime, createCallRuntime, settleCalls } from '../../../server/modules/conversations/runtime.js';
import type { DbKind } from '../../../server/platform/db/index.js';
import type { ProviderRegistry } from '../../../server/voice/providers/registry.js';
import { type SignedUp, signUp } from '../auth-helpers.js';
import { buildTestApp, type TestApp } from '../helpers.js';

export interface CallServer {
  t: TestApp;
  rt: CallRuntime;
  baseUrl: string;
  wsUrl: string;
  user: SignedUp;
  close(): Promise<void>;
}

export async function startCallServer(
  kind: DbKind,
  providers: ProviderRegistry,
  urls: Record<string, string> = {},
): Promise<CallServer> {
  const rt = createCallRuntime(providers);
  const t = await buildTestApp(kind, { calls: rt });
  t.deps.config.providerUrls = { ...t.deps.config.providerUrls, ...urls };
  const { server, closeSockets } = createHttpServer(t.app, t.deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const user = await signUp(t);
  return {
    t,
    rt,
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    user,
    close: async () => {
      closeSockets();
      await settleCalls(rt);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

export function useCallServer(kind: DbKind, providers: () => ProviderRegistry, urls: () => Record<string, string> = () => ({})) {
  let current: CallServer | undefined;
  beforeEach(async () => {
    current = await startCallServer(kind, providers(), urls());
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('no call server outside a test');
    return current;
  };
}

/** Connects a provider for the signed-up company (its API Key). */
export async function connectProvider(s: CallServer, name: string, key = `${name}-test-key`) {
  const res = await s.t.req('POST', '/api/v1/provider/values', {
    token: s.user.token,
    body: { name, keys: [{ name: 'API Key', value: key }] },
  });
  if (res.status === 409) return; // already connected
  if (res.status !== 200 && res.status !== 201) throw new Error(`connect ${name}: ${res.status} ${await res.text()}`);
}

/**
 * Connects a key the provider would refuse (a key revoked after it was saved): Connect tries a key with the
 * provider first, so it is saved while the provider cannot be reached (port 9: nothing listens), as Connect
 * then saves with a warning.
 */
export async function connectUntried(s: CallServer, name: string, key: string) {
  const urls = s.t.deps.config.providerUrls;
  s.t.deps.config.providerUrls = { ...urls, [name]: 'http://127.0.0.1:9' };
  try {
    await connectProvider(s, name, key);
  } finally {
    s.t.deps.config.providerUrls = urls;
  }
}

/** The saved sample agent of the company (every company starts with one). */
export async function sampleAgent(s: CallServer) {
  const res = await s.t.req('GET', '/api/v1/agent?page=1&limit=10', { token: s.user.token });
  const body = (await res.json()) as { data: { agents: { _id: string }[] } };
  const id = body.data.agents[0]?._id;
  if (!id) throw new Error('no sample agent');
  const full = await s.t.req('GET', `/api/v1/agent/${id}`, { token: s.user.token });
  return ((await full.json()) as { data: { agent: Record<string, unknown> & { _id: string } } }).data.agent;
}

/** The save payload of an agent (what the editor sends as `agent`). */
export function savePayload(agent: Record<string, unknown>, patch: Record<string, unknown> = {}) {
  const { name, prompt, message, settings, editor } = agent as Record<string, unknown>;
  return { name, prompt, message, settings, editor, ...patch };
}

/** Reads a `text/event-stream` answer into its JSON `data:` events. */
export async function readEvents(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => JSON.parse(l.slice(5).trim()) as Record<string, unknown>);
}

/** A browser's end of a web call: binary audio frames and JSON events. */
export class BrowserSocket {
  readonly events: Record<string, unknown>[] = [];
  audioBytes = 0;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number }>;
  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve({ code })));
    ws.on('message', (data, binary) => {
      if (binary) this.audioBytes += (data as Buffer).byteLength;
      else this.events.push(JSON.parse(String(data)) as Record<string, unknown>);
    });
  }
  send(frame: Uint8Array) {
    this.ws.send(frame);
  }
  of(type: string) {
    return this.events.filter((e) => e.type === type);
  }
}

export function openBrowser(s: CallServer, callId: string, token: string) {
  return new BrowserSocket(new WebSocket(`${s.wsUrl}/api/v1/call/web/${callId}/stream?token=${encodeURIComponent(token)}`));
}

export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Sends `message` (carrying `audioBytes` of caller audio) as fast as `ws` takes it, for at most `ms` or
 * `maxBytes` of audio, or until the socket closes; returns the bytes of audio sent. The server runs in this
 * process, so it is let read between bursts.
 */
export async function floodSocket(ws: WebSocket, message: string | Uint8Array, audioBytes: number, ms: number, maxBytes: number) {
  const until = performance.now() + ms;
  let sent = 0;
  let burst = 0;
  while (performance.now() < until && sent < maxBytes && ws.readyState === WebSocket.OPEN) {
    if (ws.bufferedAmount < 1 << 20) {
      ws.send(message);
      sent += audioBytes;
    }
    if (++burst % 8 === 0) await new Promise((r) => setImmediate(r));
  }
  return sent;
}
