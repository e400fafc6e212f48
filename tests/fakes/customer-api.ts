/**
 * A company's own API that an agent's custom function calls (tests of server/voice/tools/custom).
 *
 * It checks what a company's receiver is told to check in Parley's README ("Webhooks": the
 * `X-Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` example, recomputed
 * here over the raw bytes received, with a 300 s tolerance) and docs/call-runtime.md (custom functions:
 * the JSON body `{name, args, call}` for POST/PUT/PATCH/DELETE, the arguments as query parameters for
 * GET, the empty body signed for GET). A missing, wrong or old signature is refused with 401, a non-GET
 * body that is not that JSON with 400. Every request is recorded (method, path, query, headers, raw body,
 * whether the signature held).
 *
 * Modes (`mode`) make it answer like a real API going wrong: slow (answers after `delayMs`), big
 * (`bigBytes` of JSON text, streamed), text (a plain-text answer), notJson (content-type JSON, body not),
 * error (HTTP `errorStatus` with a short body), redirect (302 to `redirectTo`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FakeServer, startFakeServer } from './server.js';

export interface CustomerRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  verified: boolean;
}

export type CustomerMode = 'ok' | 'slow' | 'big' | 'text' | 'notJson' | 'error' | 'redirect';

/** The README's check, written out as a receiver would (not Parley's own code). */
function verifyParley(secret: string, header: string, rawBody: string, nowMs: number, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2)));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const CALL_FIELDS = ['call_id', 'agent_id', 'type', 'from_number', 'to_number', 'dynamic_variables'];

function bodyProblem(raw: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return 'body is not JSON';
  }
  const d = data as Record<string, unknown>;
  if (typeof d?.name !== 'string') return 'name missing';
  if (typeof d.args !== 'object' || d.args === null || Array.isArray(d.args)) return 'args missing';
  const call = d.call as Record<string, unknown> | undefined;
  if (!call || CALL_FIELDS.some((f) => !(f in call))) return 'call missing';
  return null;
}

export class CustomerApi {
  requests: CustomerRequest[] = [];
  secret = '';
  mode: CustomerMode = 'ok';
  delayMs = 2_000;
  bigBytes = 1024 * 1024;
  errorStatus = 500;
  redirectTo = 'http://127.0.0.1:9/elsewhere';
  /** the API's clock (a test's fake clock) */
  now: () => number = () => Date.now();
  /** what an accepted request answers (JSON) */
  answer: (req: CustomerRequest) => unknown = (req) => ({
    ok: true,
    echo: req.method === 'GET' ? Object.fromEntries(req.query) : JSON.parse(req.body).args,
  });
  /** the big answer stopped being streamed: the client hung up */
  bigAborted = false;

  private constructor(private readonly server: FakeServer) {}

  static async start(): Promise<CustomerApi> {
    let api: CustomerApi | undefined;
    const server = await startFakeServer({ request: (req, res) => api?.handle(req, res) });
    api = new CustomerApi(server);
    return api;
  }

  get url() {
    return this.server.url;
  }

  close() {
    return this.server.close();
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      const got: CustomerRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        verified:
          this.secret !== '' && verifyParley(this.secret, String(req.headers['x-parley-signature'] ?? ''), body, this.now()),
      };
      this.requests.push(got);
      if (!got.verified) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
      if (got.method !== 'GET') {
        const problem = String(req.headers['content-type']).startsWith('application/json') ? bodyProblem(body) : 'not JSON';
        if (problem)
          return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: problem }));
      }
      this.respond(got, res);
    });
  }

  private respond(got: CustomerRequest, res: ServerResponse) {
    switch (this.mode) {
      case 'slow': {
        const timer = setTimeout(
          () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.answer(got))),
          this.delayMs,
        );
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case 'big': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        let sent = 0;
        const chunk = 'x'.repeat(16 * 1024);
        const pump = () => {
          while (sent < this.bigBytes) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => {
          if (sent < this.bigBytes) this.bigAborted = true;
        });
        pump();
        return;
      }
      case 'text':
        return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('The table for 4 is booked at 7 pm.');
      case 'notJson':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops</html>');
      case 'error':
        return void res
          .writeHead(this.errorStatus, { 'content-type': 'text/plain' })
          .end('The booking system is down for maintenance.');
      case 'redirect':
        return void res.writeHead(302, { location: this.redirectTo }).end();
      default:
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.answer(got)));
    }
  }
}
