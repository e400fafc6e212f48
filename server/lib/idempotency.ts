import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import {
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_MESSAGES,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../../src/api/contract/idempotency.js';
import type { AppEnv } from '../types.js';
import { isUniqueViolation } from './db-errors.js';
import type { AppDeps } from './deps.js';
import { HttpError } from './http.js';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A first request that has not finished after this long is taken to have died (crash, kill). */
export const IDEMPOTENCY_PENDING_STALE_MS = 60_000;
/** How long a repeat waits for the first request to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 20;

export interface IdempotencyOptions {
  /** refuse requests without the header (400) instead of running them normally */
  required?: boolean;
}

/**
 * Makes a create route idempotent per company and `Idempotency-Key` (see src/api/contract/idempotency.ts).
 * Mount it after `requireAuth` and the body limit, on the route itself:
 *
 *   r.post('/', idempotent(deps), async (c) => { ... })
 *
 * The first request claims the key (a 'pending' row; the primary key makes the claim atomic on both
 * databases), runs, and stores its 2xx answer; a failed first request releases the key so the client can
 * retry with it. Repeats of a finished request get the stored answer with `Idempotent-Replayed: true`;
 * repeats of a running one wait for it; a different request under the same key answers 422.
 */
export function idempotent(deps: AppDeps, options: IdempotencyOptions = {}): MiddlewareHandler<AppEnv> {
  const db = deps.db.db;
  return async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (key === undefined || key === '') {
      if (options.required) throw new HttpError(400, IDEMPOTENCY_MESSAGES.required);
      return next();
    }
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw new HttpError(400, IDEMPOTENCY_MESSAGES.invalid);
    const { companyId } = c.get('auth');
    const hash = await requestHash(c.req.raw, c.req.method, c.req.routePath);

    const claim = async (): Promise<boolean> => {
      const now = deps.clock.now();
      try {
        await db
          .insertInto('idempotency_keys')
          .values({
            company_id: companyId,
            key,
            request_hash: hash,
            state: 'pending',
            response_status: null,
            response_body: null,
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
          })
          .execute();
        return true;
      } catch (e) {
        if (isUniqueViolation(e)) return false;
        throw e;
      }
    };

    const existing = () =>
      db.selectFrom('idempotency_keys').selectAll().where('company_id', '=', companyId).where('key', '=', key).executeTakeFirst();

    await db.deleteFrom('idempotency_keys').where('expires_at', '<', deps.clock.now().toISOString()).execute();
    const started = Date.now();
    while (!(await claim())) {
      const row = await existing();
      if (!row) continue; // released by a failed first request: claim again
      if (row.request_hash !== hash) throw new HttpError(422, IDEMPOTENCY_MESSAGES.reused);
      if (row.state === 'done' && row.response_status !== null) {
        return c.newResponse(row.response_body, row.response_status as 200, {
          'Content-Type': 'application/json',
          [IDEMPOTENT_REPLAYED_HEADER]: 'true',
        });
      }
      if (deps.clock.now().getTime() - Date.parse(row.created_at) > IDEMPOTENCY_PENDING_STALE_MS) {
        // the first request died mid-way: release its claim and try again
        await db
          .deleteFrom('idempotency_keys')
          .where('company_id', '=', companyId)
          .where('key', '=', key)
          .where('state', '=', 'pending')
          .where('created_at', '=', row.created_at)
          .execute();
        continue;
      }
      if (Date.now() - started > WAIT_FOR_FIRST_MS) throw new HttpError(409, IDEMPOTENCY_MESSAGES.inProgress);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }

    const release = () =>
      db
        .deleteFrom('idempotency_keys')
        .where('company_id', '=', companyId)
        .where('key', '=', key)
        .where('state', '=', 'pending')
        .execute();
    try {
      await next();
    } catch (e) {
      await release();
      throw e;
    }
    const res = c.res;
    if (res.status >= 200 && res.status < 300) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', response_status: res.status, response_body: await res.clone().text() })
        .where('company_id', '=', companyId)
        .where('key', '=', key)
        .execute();
    } else {
      await release();
    }
  };
}

/**
 * What identifies "the same request": method, route and body. A multipart body's boundary is random per
 * send, so it is replaced by a fixed token before hashing (the same form sent twice hashes the same).
 */
export async function requestHash(req: Request, method: string, route: string): Promise<string> {
  const type = req.headers.get('content-type') ?? '';
  const bytes = Buffer.from(await req.clone().arrayBuffer());
  const h = createHash('sha256').update(`${method} ${route}\n`);
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (boundary) {
    h.update('multipart\n');
    h.update(bytes.toString('latin1').replaceAll(boundary, '<boundary>'), 'latin1');
  } else {
    h.update(`${type.split(';')[0]?.trim() ?? ''}\n`);
    h.update(bytes);
  }
  return h.digest('hex');
}
