/**
 * A small HTTP server on 127.0.0.1 for the provider fakes: an ephemeral port, every open socket destroyed
 * on close (streams left open by a test never keep the process alive), and JSON helpers.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Listening {
  server: http.Server;
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

export async function listen(handler: http.RequestListener): Promise<Listening> {
  const server = http.createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The request body as text (fakes are fed by tests: no size limit needed beyond a sane cap). */
export function readBody(req: http.IncomingMessage, max = 4 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      text += d;
      if (text.length > max) req.destroy(new Error('body too large'));
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Splits text into small pieces (a few characters each) so a stream has several deltas. */
export function pieces(text: string, size = 4): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Whether a JSON Schema for tool arguments is an object schema, as both providers require. */
export const isObjectSchema = (schema: unknown) =>
  !!schema && typeof schema === 'object' && (schema as { type?: unknown }).type === 'object';

/** One streamed request as a fake saw it. */
export interface StreamRequestRecord {
  headers: http.IncomingHttpHeaders;
  /** the JSON body ({} when it was not JSON) */
  body: Record<string, unknown>;
  /** the client closed the connection before the answer was complete */
  closedEarly: boolean;
  /** the whole answer was written */
  completed: boolean;
}

/** Reads a JSON request: its record (for the test's assertions) and the parsed body (undefined if not JSON). */
export async function receive(req: http.IncomingMessage): Promise<{ record: StreamRequestRecord; body: unknown }> {
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    body = undefined;
  }
  const record = { headers: req.headers, body: (body ?? {}) as Record<string, unknown>, closedEarly: false, completed: false };
  return { record, body };
}

/**
 * Writes an SSE answer after an optional delay: `write` sends one event and waits `paceMs` (or a turn of the
 * event loop), answering false once the client has gone; `finish` ends the answer as complete.
 */
export function sseAnswer(res: http.ServerResponse, record: StreamRequestRecord, paceMs = 0) {
  let closed = false;
  res.on('close', () => {
    closed = true;
    if (!res.writableFinished) record.closedEarly = true;
  });
  return {
    closed: () => closed,
    start(headers: Record<string, string> = {}) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    },
    async write(text: string) {
      if (closed) return false;
      res.write(text);
      if (paceMs) await sleep(paceMs);
      else await new Promise((r) => setImmediate(r));
      return !closed;
    },
    finish() {
      record.completed = true;
      res.end();
    },
  };
}

/**
 * A hostile stream (a company's own Base URL may point anywhere): `data: ` then `piece`-byte writes up to
 * `bytes`, as fast as the connection takes them (waiting for drain), never ending the line, until the client
 * goes (`closed`).
 */
export function dripLine(res: http.ServerResponse, closed: () => boolean, drip: { bytes: number; piece: number }) {
  let sent = 0;
  const piece = 'x'.repeat(drip.piece);
  res.write('data: ');
  const pump = () => {
    while (!closed() && sent < drip.bytes) {
      sent += drip.piece;
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

/**
 * A request a carrier fake sent to the server, exactly as sent (what someone watching the wire could
 * capture and send again): the replay tests resend it verbatim.
 */
export interface SentRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends a captured request again, verbatim. */
export const resend = (r: SentRequest) =>
  fetch(r.url, { method: r.method, headers: r.headers, ...(r.method === 'POST' ? { body: r.body } : {}) });

/**
 * A fake HTTP provider's life: started on a free port of 127.0.0.1, its URL, closed; and a provider's rate
 * limiter (`throttleNext`: the next requests answered 429 in the provider's own words, by `takeThrottle`).
 */
export abstract class HttpFake {
  private listening?: Listening;
  private throttled = 0;

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;

  get url(): string {
    if (!this.listening) throw new Error(`${this.constructor.name} not started`);
    return this.listening.url;
  }

  async start(): Promise<this> {
    this.listening = await listen((req, res) => void this.handle(req, res));
    return this;
  }

  close(): Promise<void> {
    return this.listening?.close() ?? Promise.resolve();
  }

  /** The next `count` requests are answered 429, as the provider's rate limiter does. */
  throttleNext(count = 1): void {
    this.throttled = count;
  }

  /** Whether this request is one of the throttled ones (and counts it). */
  protected takeThrottle(): boolean {
    if (this.throttled <= 0) return false;
    this.throttled--;
    return true;
  }
}
