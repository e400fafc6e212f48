/**
 * A local HTTP + WebSocket server on 127.0.0.1 and a free port, for the provider fakes (tests/fakes/*). It
 * knows nothing of any provider: a fake gets every plain request, and every upgrade with the means to
 * accept it (`accept()`) or refuse it with an HTTP answer (`refuseUpgrade`), as the provider would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

export interface FakeServerHandlers {
  /** a plain HTTP request (default: 404) */
  request?(req: IncomingMessage, res: ServerResponse): void;
  /** an upgrade request (default: refused with 404) */
  upgrade?(req: IncomingMessage, socket: Duplex, accept: () => Promise<WebSocket>): void;
}

export interface FakeServer {
  /** http://127.0.0.1:<port>: what an adapter takes as its base URL */
  url: string;
  port: number;
  /** Closes every connection and the server. */
  close(): Promise<void>;
}

export async function startFakeServer(handlers: FakeServerHandlers): Promise<FakeServer> {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    if (handlers.request) handlers.request(req, res);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const accept = () =>
      new Promise<WebSocket>((resolve) => {
        wss.handleUpgrade(req, socket, head, (ws) => {
          ws.on('error', () => ws.terminate());
          resolve(ws);
        });
      });
    if (handlers.upgrade) handlers.upgrade(req, socket, accept);
    else refuseUpgrade(socket, 404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      for (const socket of sockets) socket.destroy();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** Answers an upgrade request with an HTTP status and a JSON body instead of switching protocols. */
export function refuseUpgrade(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
}

/** A promise of `ms` milliseconds (real time: fakes run on the test's clock). */
export const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What every fake records of one accepted stream. */
export interface StreamRecord {
  /** set when the socket closed: who closed it, with which code */
  closed: { code: number; reason: string; by: 'fake' | 'client' } | null;
  whenClosed: Promise<void>;
}

/**
 * The frame of a WebSocket provider fake: a server on 127.0.0.1, a configurable delay before an upgrade is
 * answered (a slow provider), the records of the accepted streams, and closing them as the provider would
 * on an internal failure. A fake implements `upgrade` (refuse with `refuseUpgrade`, or `accept()` and `track`).
 */
export abstract class FakeProvider<R extends StreamRecord> {
  /** the key this fake accepts; set another to make it refuse the adapter's */
  abstract key: string;
  /** the close frame of a failure mid-stream */
  protected abstract readonly failure: { code: number; reason: string };
  connectDelayMs = 0;
  readonly streams: R[] = [];
  private readonly live = new Map<WebSocket, R>();
  private server: FakeServer | null = null;

  /** the base URL an adapter is given */
  get url(): string {
    if (!this.server) throw new Error('the fake is not listening');
    return this.server.url;
  }

  protected async listen(): Promise<void> {
    this.server = await startFakeServer({
      request: (req, res) => this.request(req, res),
      upgrade: (req, socket, accept) => {
        void (async () => {
          if (this.connectDelayMs > 0) await wait(this.connectDelayMs);
          await this.upgrade(req, socket, accept);
        })();
      },
    });
  }

  protected abstract upgrade(req: IncomingMessage, socket: Duplex, accept: () => Promise<WebSocket>): Promise<void>;

  /** A plain HTTP request to the provider's API (default: 404). */
  protected request(_req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  }

  /** Records an accepted stream; `onClose` runs when its socket closes, whoever closed it. */
  protected track(ws: WebSocket, fields: Omit<R, keyof StreamRecord>, onClose: () => void = () => {}): R {
    let markClosed: () => void = () => {};
    const whenClosed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    const record = { ...fields, closed: null, whenClosed } as R;
    this.streams.push(record);
    this.live.set(ws, record);
    ws.on('close', (code, reason) => {
      record.closed ??= { code, reason: reason.toString(), by: 'client' };
      this.live.delete(ws);
      onClose();
      markClosed();
    });
    return record;
  }

  /** Closes a stream from the provider's side. */
  closeStream(ws: WebSocket, code: number, reason: string): void {
    const record = this.live.get(ws);
    if (!record || record.closed) return;
    // a close reason is at most 123 bytes: providers' long reasons arrive cut there
    const cut = Buffer.from(reason)
      .subarray(0, 123)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    record.closed = { code, reason: cut, by: 'fake' };
    ws.close(code, cut);
  }

  /** Every open stream fails as the provider's do on an internal error. */
  failStreams(): void {
    for (const ws of [...this.live.keys()]) this.closeStream(ws, this.failure.code, this.failure.reason);
  }

  close(): Promise<void> {
    return this.server?.close() ?? Promise.resolve();
  }
}

/** A test's own client: the open socket, or the HTTP answer of a refused upgrade (`url` may be http://). */
export function rawUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<WebSocket | { status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    ws.on('open', () => resolve(ws));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', () => {});
  });
}
