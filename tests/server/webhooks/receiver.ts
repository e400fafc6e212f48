/**
 * A webhook receiver for the tests: an HTTP server on 127.0.0.1 that checks every delivery's
 * X-Parley-Signature against the secret it is given (README "Webhooks" shows the same check), and can be
 * told to fail the next N deliveries (500), to hang (never answer), or to redirect.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../../server/modules/webhooks/sign.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** the signature matched the secret and the time was within 5 minutes of `now` */
  verified: boolean;
  delivery: string;
  event: string;
}

export class WebhookReceiver {
  received: Received[] = [];
  /** deliveries answered 200 (after any failures) */
  accepted: Received[] = [];
  secret = '';
  /** the receiver's clock (the app's fake clock in tests) */
  now: () => number = () => Date.now();
  private failLeft = 0;
  private hanging = false;
  private redirectTo: string | null = null;
  private readonly sockets = new Set<import('node:net').Socket>();
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = http.createServer();
    const r = new WebhookReceiver(server);
    server.on('connection', (s) => {
      r.sockets.add(s);
      s.on('close', () => r.sockets.delete(s));
    });
    server.on('request', (req, res) => r.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return r;
  }

  get url() {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  failNext(n: number) {
    this.failLeft = n;
  }
  hang(on = true) {
    this.hanging = on;
  }
  redirect(to: string | null) {
    this.redirectTo = to;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = String(req.headers['x-parley-signature'] ?? '');
      const got: Received = {
        headers: req.headers,
        body,
        verified: this.secret !== '' && verifySignature(this.secret, header, body, this.now()),
        delivery: String(req.headers['x-parley-delivery'] ?? ''),
        event: String(req.headers['x-parley-event'] ?? ''),
      };
      this.received.push(got);
      if (this.hanging) return; // never answers
      if (this.redirectTo) {
        res.writeHead(302, { location: this.redirectTo }).end();
        return;
      }
      if (!got.verified) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('bad signature');
        return;
      }
      if (this.failLeft > 0) {
        this.failLeft--;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver is down');
        return;
      }
      this.accepted.push(got);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, echo: 'x'.repeat(10_000) }));
    });
  }

  async close() {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
