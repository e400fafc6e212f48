import {
  isAgentsOnlyUpdate,
  NumberImportBodySchema,
  NumberListQuerySchema,
  PHONE_MESSAGES,
  PHONE_PROVIDERS,
  type PhoneNumber,
  PhoneNumberCreateBodySchema,
  PhoneNumberUpdateBodySchema,
  type PhoneProvider,
} from '@contract/phone.js';
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { isId } from '../../platform/crypto/ids.js';
import { CompanyGoneError, companyExists } from '../../platform/db/company-lock.js';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { isForeignKeyViolation } from '../../platform/http/db-errors.js';
import { HttpError, jsonBody, ok } from '../../platform/http/http.js';
import { idempotent } from '../../platform/http/idempotency.js';
import { listQuery } from '../../platform/http/list-query.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { carrierNumbers, ownedNumbers, pointAtParley, restoreCarrierNumber } from '../telephony/index.js';
import {
  createCompanyNumber,
  createImportedNumber,
  deleteCompanyNumber,
  findCompanyNumber,
  foreignAgents,
  importedNumberOrigin,
  listCompanyNumbers,
  numbersOnPlatform,
  updateCompanyNumber,
} from './number.repo.js';

const notFound = () => new HttpError(404, PHONE_MESSAGES.notFound);
/** A malformed id answers 404 like a missing or foreign one. */
const numberId = (id: string) => {
  if (!isId(id)) throw notFound();
  return id;
};

/**
 * An agent deleted between the check and the write: the foreign key refuses the write. Answered like
 * any unknown agent, unless it was the company that went (the error handler answers that one 401).
 */
async function agentsStillThere<T>(db: Kysely<DB>, companyId: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isForeignKeyViolation(e) && (await companyExists(db, companyId))) throw new HttpError(400, PHONE_MESSAGES.agentNotFound);
    throw e;
  }
}

/** /number: the company's phone numbers (list, read, create, update, delete). Company and account come from the token. */
export function numberRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));
  r.on(['POST', 'PUT'], '*', limitBody(JSON_BODY_MAX));

  /** 400 unless every agent named in the body is one of the company's. */
  const checkAgents = async (
    companyId: string,
    body: { inbound_agent_id?: string | null; outbound_agent_id?: string | null },
  ) => {
    const keys = (['inbound_agent_id', 'outbound_agent_id'] as const).filter((k) => body[k]);
    const foreign = new Set(
      await foreignAgents(
        db,
        companyId,
        keys.map((k) => body[k] as string),
      ),
    );
    const errors: Record<string, string> = {};
    for (const key of keys) if (foreign.has(body[key] as string)) errors[key] = PHONE_MESSAGES.agentNotFound;
    const first = Object.keys(errors)[0];
    if (first) throw new HttpError(400, `${first}: ${PHONE_MESSAGES.agentNotFound}`, { errors });
  };

  r.get('/', async (c) =>
    ok(c, { data: await listCompanyNumbers(db, c.get('auth').companyId, listQuery(c, NumberListQuerySchema)) }),
  );

  // a retried create (Idempotency-Key) gets the first answer again instead of 409
  r.post('/create', idempotent(deps), async (c) => {
    const body = await jsonBody(c, PhoneNumberCreateBodySchema);
    const { companyId, accountId } = c.get('auth');
    await checkAgents(companyId, body);
    const number = await agentsStillThere(db, companyId, () =>
      createCompanyNumber(db, { companyId, accountId, body, now: deps.clock.now() }),
    );
    if (number === 'taken')
      throw new HttpError(409, PHONE_MESSAGES.alreadyRegistered, { errors: { phone_number: PHONE_MESSAGES.alreadyRegistered } });
    if (number === 'vanished') throw (await companyExists(db, companyId)) ? notFound() : new CompanyGoneError();
    return ok(c, { msg: PHONE_MESSAGES.created, data: { number } }, 201);
  });

  // Import from the company's own carrier account (its Providers card): list, then import the chosen ones
  r.get('/import/:provider', async (c) => {
    const provider = c.req.param('provider');
    if (!(PHONE_PROVIDERS as readonly string[]).includes(provider)) throw new HttpError(400, PHONE_MESSAGES.unknownProvider);
    const numbers = await carrierNumbers(deps, c.get('auth').companyId, provider, (phones) => numbersOnPlatform(db, phones));
    return ok(c, { data: { numbers } });
  });

  r.post('/import', idempotent(deps), async (c) => {
    const body = await jsonBody(c, NumberImportBodySchema);
    const { companyId, accountId } = c.get('auth');
    if (body.inbound_agent_id) await checkAgents(companyId, { inbound_agent_id: body.inbound_agent_id });
    // only numbers the account really has, each once; the account's handle of each comes from the listing
    const { carrier, numbers: owned } = await ownedNumbers(deps, companyId, body.provider);
    const byPhone = new Map(owned.map((n) => [n.phoneNumber, n]));
    const chosen = [...new Set(body.phone_numbers)];
    const missing = chosen.find((p) => !byPhone.has(p));
    if (missing) throw new HttpError(400, PHONE_MESSAGES.importNotOnAccount(missing, carrier.label));
    const taken = await numbersOnPlatform(db, chosen);
    const already = chosen.find((p) => taken.has(p));
    if (already)
      throw new HttpError(409, PHONE_MESSAGES.alreadyRegistered, {
        errors: { phone_numbers: `${already}: ${PHONE_MESSAGES.alreadyRegistered}` },
      });
    const imported: PhoneNumber[] = [];
    for (const phone of chosen) {
      const ref = (byPhone.get(phone) as { ref: string }).ref;
      const previous = await pointAtParley(deps, companyId, body.provider, ref);
      const restore = () =>
        restoreCarrierNumber(deps, companyId, { provider: body.provider, carrier_ref: ref, carrier_previous: previous }).catch(
          () => undefined,
        );
      const number = await agentsStillThere(db, companyId, () =>
        createImportedNumber(db, {
          companyId,
          accountId,
          phone,
          provider: body.provider as PhoneProvider,
          ref,
          previous,
          inboundAgentId: body.inbound_agent_id ?? null,
          now: deps.clock.now(),
        }),
      ).catch(async (e: unknown) => {
        // the row could not be stored: the carrier gets back what it had
        await restore();
        throw e;
      });
      if (number === 'taken') {
        await restore();
        throw new HttpError(409, PHONE_MESSAGES.alreadyRegistered, {
          errors: { phone_numbers: `${phone}: ${PHONE_MESSAGES.alreadyRegistered}` },
        });
      }
      imported.push(number);
    }
    return ok(c, { msg: PHONE_MESSAGES.imported(imported.length), data: { numbers: imported } }, 201);
  });

  r.get('/:id', async (c) => {
    const number = await findCompanyNumber(db, c.get('auth').companyId, numberId(c.req.param('id')));
    if (!number) throw notFound();
    return ok(c, { data: { number } });
  });

  r.put('/:id', async (c) => {
    const id = numberId(c.req.param('id'));
    const body = await jsonBody(c, PhoneNumberUpdateBodySchema);
    const { companyId } = c.get('auth');
    // a foreign or missing number answers 404 before anything about the body's agents is said
    if (!(await findCompanyNumber(db, companyId, id))) throw notFound();
    await checkAgents(companyId, body);
    const result = await agentsStillThere(db, companyId, () => updateCompanyNumber(db, companyId, id, body, deps.clock.now()));
    if (result.kind === 'not_found') throw notFound();
    if (result.kind === 'pool_number_fixed')
      throw new HttpError(400, PHONE_MESSAGES.poolNumberFixed, { errors: { phone_number: PHONE_MESSAGES.poolNumberFixed } });
    if (result.kind === 'taken')
      throw new HttpError(409, PHONE_MESSAGES.alreadyRegistered, { errors: { phone_number: PHONE_MESSAGES.alreadyRegistered } });
    const msg = isAgentsOnlyUpdate(body) ? PHONE_MESSAGES.agentsUpdated : PHONE_MESSAGES.updated;
    return ok(c, { msg, data: { number: result.number } });
  });

  r.delete('/:id', async (c) => {
    const id = numberId(c.req.param('id'));
    const { companyId } = c.get('auth');
    // an imported number gets back, at its carrier, what it had before it was imported (or stays, to retry)
    const origin = await importedNumberOrigin(db, companyId, id);
    if (origin?.carrier_ref) await restoreCarrierNumber(deps, companyId, origin);
    const result = await deleteCompanyNumber(db, companyId, id, deps.clock.now());
    if (!result) throw notFound();
    return ok(c, { msg: PHONE_MESSAGES.deleted, data: { _id: id, released: result.released } });
  });

  return r;
}
