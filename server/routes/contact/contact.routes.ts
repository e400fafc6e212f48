import { Hono } from 'hono';
import { ContactBodySchema, type ContactResponse, ACCOUNT_MESSAGES as M } from '../../../src/api/contract/account.js';
import { clientIp } from '../../lib/auth.js';
import { JSON_BODY_MAX, limitBody } from '../../lib/body-limit.js';
import type { AppDeps } from '../../lib/deps.js';
import { jsonBody } from '../../lib/http.js';
import { newId } from '../../lib/ids.js';
import { enforce, LIMITS } from '../../services/ratelimit.js';
import type { AppEnv } from '../../types.js';
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
