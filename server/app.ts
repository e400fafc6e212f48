import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import { mountModules } from './compose.js';
import { clientIp } from './modules/auth/index.js';
import { ping } from './platform/db/index.js';
import type { AppDeps } from './platform/deps.js';
import { limitBody } from './platform/http/body-limit.js';
import { refusalAnswer, violationAnswer } from './platform/http/db-errors.js';
import { HttpError, jsonBody, NUL_MESSAGE } from './platform/http/http.js';
import { enforce, LIMITS } from './platform/http/ratelimit.js';
import { securityHeaders } from './platform/http/security.js';
import { MALFORMED_URL, mountStatic } from './platform/http/static.js';
import type { AppEnv } from './platform/http/types.js';
import { logBudget } from './platform/log/log-budget.js';
import { UPLOAD_IDLE_MS, uploadIdleTimeout } from './platform/uploads/upload-idle.js';

/** Every API request body is capped here (413 before it is buffered); routes cap theirs lower where they can. */
export const API_BODY_MAX = 2 * 1024 * 1024;
/** The uploads that stream their bodies and enforce their own, larger limits (photo, knowledge base, recipients CSV). */
const STREAMED_UPLOADS = /^\/api\/v1\/(account\/register|knowledge-base|batch-call\/[^/]+\/recipients)\/?$/;

/** Characters of a 404 report's path that reach the log. */
export const NOT_FOUND_PATH_LOGGED = 200;
/** Log lines of 404 reports per minute, all clients together. */
export const NOT_FOUND_LOGS_PER_MINUTE = 60;

/** Builds the whole HTTP app from its dependencies (composeDeps, server/compose.ts). Tests build one per test. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  // strict: false -> `/agent` and `/agent/` are the same route (the spec writes paths both ways)
  const app = new Hono<AppEnv>({ strict: false });
  app.use('*', securityHeaders);
  app.use('/api/*', async (c, next) => {
    // a NUL in the path or the query (%00) is never valid input, and PostgreSQL text cannot hold one
    if (/%00/.test(c.req.url)) throw new HttpError(400, NUL_MESSAGE);
    await next();
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  const capped = limitBody(API_BODY_MAX);
  // streamed uploads: their own size limits, and 408 when the client stops sending
  const watched = uploadIdleTimeout(() => deps.config.uploadIdleMs ?? UPLOAD_IDLE_MS);
  app.use('/api/*', (c, next) => (STREAMED_UPLOADS.test(c.req.path) ? watched(c, next) : capped(c, next)));

  const api = new Hono<AppEnv>({ strict: false });
  api.get('/health', async (c) => {
    await ping(deps.db.db);
    return c.json({ success: true, db: deps.db.kind, ...(deps.eventLoop ? { event_loop: deps.eventLoop.health() } : {}) });
  });

  // The 404 page reports the bad path here so operators see broken links. Anyone can call it, so it is
  // bounded: LIMITS.notFoundPerIp reports an hour per IP (then 429), the first NOT_FOUND_PATH_LOGGED
  // characters of a path (and its length) in the log, at most NOT_FOUND_LOGS_PER_MINUTE lines a minute
  // for all clients together; reports past that are counted, and the count is logged in the next minute.
  const NotFoundReport = v.object({ path: v.pipe(v.string(), v.maxLength(2048)) });
  const notFoundLog = logBudget(NOT_FOUND_LOGS_PER_MINUTE, 60_000);
  api.post('/client/not-found', async (c) => {
    const { path } = await jsonBody(c, NotFoundReport);
    const now = deps.clock.now();
    await enforce(deps.db.db, LIMITS.notFoundPerIp, clientIp(c, deps), now);
    const { allowed, dropped } = notFoundLog.take(now);
    if (dropped > 0) deps.logger.warn('client 404 reports dropped', { dropped });
    if (allowed) deps.logger.warn('client 404', { path: path.slice(0, NOT_FOUND_PATH_LOGGED), length: path.length });
    return c.json({ success: true });
  });

  mountModules(api, deps);
  app.route('/api/v1', api);

  app.all('/api/*', (c) => c.json({ success: false, msg: `No such API route: ${c.req.method} ${c.req.path}` }, 404));
  if (deps.config.staticDir) mountStatic(app as unknown as Hono, deps.config.staticDir);

  app.notFound((c) => c.json({ success: false, msg: 'Not found' }, 404));
  const answer = (c: Context<AppEnv>, err: HttpError) => {
    for (const [k, val] of Object.entries(err.headers ?? {})) c.header(k, val);
    return c.json({ success: false, msg: err.message, ...err.extra }, err.status);
  };
  app.onError(async (err, c) => {
    // a refusal met because the company was deleted meanwhile: 401 like any request of a deleted company
    if (err instanceof HttpError) return answer(c, await refusalAnswer(err, deps.db.db, c.get('auth')));
    // a race the route's checks could not see (duplicate, deleted company): 409 / 401, never 500
    const violation = await violationAnswer(err, deps.db.db, c.get('auth')).catch(() => null);
    if (violation) return answer(c, violation);
    // a malformed percent escape met while decoding a path or a parameter is the client's mistake
    if (err instanceof URIError) return c.json({ success: false, msg: MALFORMED_URL }, 400);
    // Hono's own HTTPException (e.g. body limit) carries a status
    const status = (err as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return c.json({ success: false, msg: err.message || 'Bad request' }, status as 400);
    }
    deps.logger.error('unhandled error', { path: c.req.path, method: c.req.method, stack: err.stack });
    return c.json({ success: false, msg: 'Something went wrong on our side. Please try again.' }, 500);
  });
  return app;
}
