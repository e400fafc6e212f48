import { ContactBodySchema, type ContactResponse, ACCOUNT_MESSAGES as M } from '@contract/account.js';
import { Hono } from 'hono';
import { newId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { jsonBody } from '../../platform/http/http.js';
import { enforce, LIMITS } from '../../platform/http/ratelimit.js';
import type { AppEnv } from '../../platform/http/types.js';
import { clientIp } from '../auth/index.js';
import { insertContactMessage } from './contact.repo.js';

export function contactRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  /** POST /contact: every message is kept in contact_messages. */
  app.post('/', limitBody(JSON_BODY_MAX), async (c) => {
    const body = await jsonBody(c, ContactBodySchema);
    const now = deps.clock.now();
    const ip = clientIp(c, deps);
    await enforce(deps.db.db, LIMITS.contactPerIp, ip, now);
    await insertContactMessage(deps.db.db, {
      id: newId(now),
      name: body.name,
      email: body.email,
      message: body.message,
      ip,
      createdAt: now.toISOString(),
    });
    deps.logger.info('contact message stored');
    const answer: ContactResponse = { success: true, msg: M.contactSent };
    return c.json(answer);
  });

  return app;
}
