/**
 * Request signatures Parley puts on what it sends to a company's own servers (webhooks, custom functions):
 * `X-Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the company's
 * signing secret. A receiver recomputes the HMAC over the exact bytes it received and refuses a timestamp
 * too far from its clock (replays); README "Webhooks" has the example.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const signatureOf = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

export function signatureHeader(secret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${signatureOf(secret, t, body)}`;
}

/** True when `header` signs `body` with `secret` and its time is within `toleranceS` of `nowMs`. */
export function verifySignature(secret: string, header: string, body: string, nowMs: number, toleranceS = 300): boolean {
  const parts = new Map(
    header.split(',').map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > toleranceS || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const want = Buffer.from(signatureOf(secret, t, body), 'hex');
  return timingSafeEqual(want, Buffer.from(v1, 'hex'));
}
