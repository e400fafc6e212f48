import { NumberRequestBodySchema, PHONE_MESSAGES } from '@contract/phone.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { HttpError, jsonBody, ok } from '../../platform/http/http.js';
import { idempotent } from '../../platform/http/idempotency.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { grantNumberRequests, requestNumber } from './request.repo.js';

/**
 * /request: a company asks for a free number of the pool. 201 the first time, 200 with the same
 * request afterwards (idempotent); 404 when the number is not free. With REQUEST_AUTO_GRANT=true the
 * request is granted at once and the number moves to the company.
 */
export function requestRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps), limitBody(JSON_BODY_MAX));

  r.post('/', idempotent(deps), async (c) => {
    const { phone } = await jsonBody(c, NumberRequestBodySchema);
    const { companyId, accountId } = c.get('auth');
    const now = deps.clock.now();
    const outcome = await requestNumber(db, { companyId, accountId, phone, now });
    if (!outcome) throw new HttpError(404, PHONE_MESSAGES.notAvailable);
    let { request } = outcome;
    if (deps.config.requestAutoGrant && !request.granted) {
      const granted = await grantNumberRequests(db, { now, companyId, requestId: request._id });
      if (granted.length > 0) request = { ...request, granted: true };
    }
    return ok(c, { msg: PHONE_MESSAGES.requestSent(request.phone), data: { request } }, outcome.created ? 201 : 200);
  });

  return r;
}
