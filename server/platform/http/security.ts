import type { MiddlewareHandler } from 'hono';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Security headers on every response. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const h = c.res.headers;
  if (!h.has('Content-Security-Policy')) h.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  h.set('X-Content-Type-Options', 'nosniff');
  h.set('Referrer-Policy', 'no-referrer');
  h.set('X-Frame-Options', 'DENY');
  h.set('Cross-Origin-Opener-Policy', 'same-origin');
  // the editor's Test call uses the microphone of the app's own pages; never an embedded page's
  h.set('Permissions-Policy', 'camera=(), geolocation=(), microphone=(self)');
  // A HEAD answer is rebuilt from the GET answer's original init by @hono/node-server, which drops
  // headers added afterwards: hand it a fresh response that carries them.
  if (c.req.method === 'HEAD') {
    c.res = new Response(null, { status: c.res.status, statusText: c.res.statusText, headers: new Headers(h) });
  }
};
