import type { MiddlewareHandler } from 'hono';

/** An upload whose client sends no byte for this long is answered 408 (AppConfig.uploadIdleMs overrides it). */
export const UPLOAD_IDLE_MS = 30_000;
export const UPLOAD_STALLED_MSG = 'The upload stalled: no data arrived for a while. Please try again.';

class UploadStalledError extends Error {}

/**
 * Ends uploads that stop sending. The request body is read through a stream that fails when the client
 * has sent nothing for `idleMs` while the route waits for more (time the server spends on what it
 * received does not count). The route fails as for any broken body, removing what it stored so far
 * (knowledge-base files, recipient rows; the sign-up form is buffered and stores nothing before its end),
 * and the answer becomes 408 with `Connection: close`, so the socket is released at once instead of
 * after Node's 300 s request timeout.
 */
export function uploadIdleTimeout(idleMs: () => number): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const ms = idleMs();
    const reader = body.getReader();
    let stalled = false;
    const watched = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          let timer: NodeJS.Timeout | undefined;
          const idle = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new UploadStalledError()), ms);
          });
          try {
            const { done, value } = await Promise.race([reader.read(), idle]);
            if (done) controller.close();
            else controller.enqueue(value);
          } catch (e) {
            if (e instanceof UploadStalledError) stalled = true;
            controller.error(e);
          } finally {
            clearTimeout(timer);
          }
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    c.req.raw = new Request(c.req.raw, { body: watched, duplex: 'half' } as RequestInit);
    await next();
    if (stalled) {
      c.res = undefined;
      c.res = c.json({ success: false, msg: UPLOAD_STALLED_MSG }, 408, { Connection: 'close' });
    }
  };
}
