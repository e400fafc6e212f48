import {
  isAgentsOnlyUpdate,
  NumberListQuerySchema,
  PHONE_MESSAGES,
  PhoneNumberCreateBodySchema,
  PhoneNumberUpdateBodySchema,
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
import {
  createCompanyNumber,
  deleteCompanyNumber,
  findCompanyNumber,
  foreignAgents,
  importedNumberOrigin,
  listCompanyNumbers,
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
/** What the release of a number imported from the company's carrier account does first (the telephony module sets the carrier back). */
export type ReleaseImported = (
  companyId: string,
  row: { provider: string; carrier_ref: string | null; carrier_previous: string | null },
) => Promise<void>;

export function numberRoutes(deps: AppDeps, releaseImported?: ReleaseImported) {
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
    if (origin?.carrier_ref && releaseImported) await releaseImported(companyId, origin);
    const result = await deleteCompanyNumber(db, companyId, id, deps.clock.now());
    if (!result) throw notFound();
    return ok(c, { msg: PHONE_MESSAGES.deleted, data: { _id: id, released: result.released } });
  });

  return r;
}
