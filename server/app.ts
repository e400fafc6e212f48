import { Hono } from 'hono';
import * as v from 'valibot';
import { ping } from './db/index.js';
import { limitBody } from './lib/body-limit.js';
import type { AppDeps } from './lib/deps.js';
import { HttpError, jsonBody, NUL_MESSAGE } from './lib/http.js';
import { securityHeaders } from './lib/security.js';
import { mountStatic } from './lib/static.js';
import { registerRoutes } from './routes/index.js';
import type { AppEnv } from './types.js';

/** Every API request body is capped here (413 before it is buffered); routes cap theirs lower where they can. */
export const API_BODY_MAX = 2 * 1024 * 1024;
/** The uploads that stream their bodies and enforce their own, larger limits (photo, knowledge base, recipients CSV). */
const STREAMED_UPLOADS = /^\/api\/v1\/(account\/register|knowledge-base|batch-call\/[^/]+\/recipients)\/?$/;

/** Builds the whole HTTP app from injected dependencies. Tests build one per test. */
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
  app.use('/api/*', (c, next) => (STREAMED_UPLOADS.test(c.req.path) ? next() : capped(c, next)));

  const api = new Hono<AppEnv>({ strict: false });
  api.get('/health', async (c) => {
    await ping(deps.db.db);
    return c.json({ success: true, db: deps.db.kind });
  });

  // The 404 page reports the bad path here so operators see broken links.
  const NotFoundReport = v.object({ path: v.pipe(v.string(), v.maxLength(2048)) });
  api.post('/client/not-found', async (c) => {
    const { path } = await jsonBody(c, NotFoundReport);
    deps.logger.warn('client 404', { path });
    return c.json({ success: true });
  });

  registerRoutes(api, deps);
  app.route('/api/v1', api);

  app.all('/api/*', (c) => c.json({ success: false, msg: `No such API route: ${c.req.method} ${c.req.path}` }, 404));
  if (deps.config.staticDir) mountStatic(app as unknown as Hono, deps.config.staticDir);

  app.notFound((c) => c.json({ success: false, msg: 'Not found' }, 404));
  app.onError((err, c) => {
    if (err instanceof HttpError) {
      for (const [k, val] of Object.entries(err.headers ?? {})) c.header(k, val);
      return c.json({ success: false, msg: err.message, ...err.extra }, err.status);
    }
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
