/**
 * /number/import: the numbers of the company's own Twilio or Plivo account (its Providers card), and their
 * import (contract: src/api/contract/phone.ts, 'Import from the company's carrier account'):
 * - `GET /number/import/{provider}`: the account's numbers, marked when already on the platform;
 * - `POST /number/import {provider, phone_numbers, inbound_agent_id?}`: each chosen number is pointed at
 *   Parley through the carrier's API (imports.ts) and added as the company's own; a number whose row cannot
 *   be stored gets back at once what it had. The rows belong to the numbers module.
 */
import {
  NumberImportBodySchema,
  PHONE_MESSAGES,
  PHONE_PROVIDERS,
  type PhoneNumber,
  type PhoneProvider,
} from '@contract/phone.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { isForeignKeyViolation } from '../../platform/http/db-errors.js';
import { HttpError, jsonBody, ok } from '../../platform/http/http.js';
import { idempotent } from '../../platform/http/idempotency.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { createImportedNumber, foreignAgents, numbersOnPlatform } from '../numbers/index.js';
import { carrierNumbers, ownedNumbers, pointAtParley, restoreCarrierNumber } from './imports.js';

export function numberImportRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));
  r.on(['POST'], '*', limitBody(JSON_BODY_MAX));

  r.get('/:provider', async (c) => {
    const provider = c.req.param('provider');
    if (!(PHONE_PROVIDERS as readonly string[]).includes(provider)) throw new HttpError(400, PHONE_MESSAGES.unknownProvider);
    const numbers = await carrierNumbers(deps, c.get('auth').companyId, provider, (phones) => numbersOnPlatform(db, phones));
    return ok(c, { data: { numbers } });
  });

  r.post('/', idempotent(deps), async (c) => {
    const body = await jsonBody(c, NumberImportBodySchema);
    const { companyId, accountId } = c.get('auth');
    const agentId = body.inbound_agent_id ?? null;
    if (agentId && (await foreignAgents(db, companyId, [agentId])).length > 0)
      throw new HttpError(400, `inbound_agent_id: ${PHONE_MESSAGES.agentNotFound}`, {
        errors: { inbound_agent_id: PHONE_MESSAGES.agentNotFound },
      });
    // only numbers the account really has, each once; the account's handle of each comes from the listing
    const { carrier, numbers: owned } = await ownedNumbers(deps, companyId, body.provider);
    const byPhone = new Map(owned.map((n) => [n.phoneNumber, n]));
    const chosen = [...new Set(body.phone_numbers)];
    const missing = chosen.find((p) => !byPhone.has(p));
    if (missing) throw new HttpError(400, PHONE_MESSAGES.importNotOnAccount(missing, carrier.label));
    const taken = await numbersOnPlatform(db, chosen);
    const already = chosen.find((p) => taken.has(p));
    const alreadyRegistered = (phone: string) =>
      new HttpError(409, PHONE_MESSAGES.alreadyRegistered, {
        errors: { phone_numbers: `${phone}: ${PHONE_MESSAGES.alreadyRegistered}` },
      });
    if (already) throw alreadyRegistered(already);
    const imported: PhoneNumber[] = [];
    for (const phone of chosen) {
      const ref = (byPhone.get(phone) as { ref: string }).ref;
      const previous = await pointAtParley(deps, companyId, body.provider, ref);
      // the row could not be stored: the carrier gets back what it had
      const restore = () =>
        restoreCarrierNumber(deps, companyId, { provider: body.provider, carrier_ref: ref, carrier_previous: previous }).catch(
          () => undefined,
        );
      let number: PhoneNumber | 'taken';
      try {
        number = await createImportedNumber(db, {
          companyId,
          accountId,
          phone,
          provider: body.provider as PhoneProvider,
          ref,
          previous,
          inboundAgentId: agentId,
          now: deps.clock.now(),
        });
      } catch (e) {
        await restore();
        if (isForeignKeyViolation(e)) throw new HttpError(400, `inbound_agent_id: ${PHONE_MESSAGES.agentNotFound}`);
        throw e;
      }
      if (number === 'taken') {
        await restore();
        throw alreadyRegistered(phone);
      }
      imported.push(number);
    }
    return ok(c, { msg: PHONE_MESSAGES.imported(imported.length), data: { numbers: imported } }, 201);
  });

  return r;
}
