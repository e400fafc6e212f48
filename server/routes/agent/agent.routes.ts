import { Hono } from 'hono';
import {
  AGENT_MESSAGES,
  type AgentDoc,
  AgentListQuerySchema,
  AgentSavePayloadSchema,
  AgentUpdateBodySchema,
  applyDialogPatch,
} from '../../../src/api/contract/agent.js';
import { requireAuth } from '../../lib/auth.js';
import { limitBody } from '../../lib/body-limit.js';
import type { AppDeps } from '../../lib/deps.js';
import { HttpError, jsonBody, ok } from '../../lib/http.js';
import { idempotent } from '../../lib/idempotency.js';
import { isId } from '../../lib/ids.js';
import { listQuery } from '../../lib/list-query.js';
import { onCompanyCreated } from '../../services/company-hooks.js';
import type { AppEnv } from '../../types.js';
import { deleteAgent, docOf, findAgent, insertAgent, listAgents, updateAgent } from './agent.repo.js';
import { createSampleAgent } from './sample-agent.js';

if (!onCompanyCreated.includes(createSampleAgent)) onCompanyCreated.push(createSampleAgent);

/** Agent bodies carry long prompts and knowledge-base selections. */
const AGENT_BODY_MAX = 2 * 1024 * 1024;

const notFound = () => new HttpError(404, AGENT_MESSAGES.notFound);
/** A malformed id answers 404 like a missing or foreign one. */
const agentId = (id: string) => {
  if (!isId(id)) throw notFound();
  return id;
};

/** /agent: the company's agents (list, read, create, update, delete). Company and account come from the token. */
export function agentRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));
  r.on(['POST', 'PUT'], '*', limitBody(AGENT_BODY_MAX, 'Agent is too large'));

  r.get('/', async (c) => {
    return ok(c, { data: await listAgents(db, c.get('auth').companyId, listQuery(c, AgentListQuerySchema)) });
  });

  r.get('/:id', async (c) => {
    const agent = await findAgent(db, c.get('auth').companyId, agentId(c.req.param('id')));
    if (!agent) throw notFound();
    return ok(c, { data: { agent } });
  });

  r.post('/', idempotent(deps), async (c) => {
    const payload = await jsonBody(c, AgentSavePayloadSchema);
    const { companyId, accountId } = c.get('auth');
    const agent = await insertAgent(db, { companyId, accountId, doc: docOf(payload), now: deps.clock.now() });
    return ok(c, { msg: AGENT_MESSAGES.created, data: { agent } }, 201);
  });

  r.put('/:id', async (c) => {
    const id = agentId(c.req.param('id'));
    const body = await jsonBody(c, AgentUpdateBodySchema);
    const { version, ...fields } = body;
    // the full save payload replaces the document; a dialog patch is applied onto it
    const change = 'settings' in fields ? () => docOf(fields) : (doc: AgentDoc) => applyDialogPatch(doc, fields);
    const result = await updateAgent(db, c.get('auth').companyId, id, change, {
      expectedVersion: version,
      now: deps.clock.now(),
    });
    if (result.kind === 'not_found') throw notFound();
    if (result.kind === 'conflict') throw new HttpError(409, AGENT_MESSAGES.conflict);
    return ok(c, { msg: AGENT_MESSAGES.updated, data: { agent: result.agent } });
  });

  r.delete('/:id', async (c) => {
    const id = agentId(c.req.param('id'));
    if (!(await deleteAgent(db, c.get('auth').companyId, id, deps.clock.now()))) throw notFound();
    return ok(c, { msg: AGENT_MESSAGES.deleted, data: { _id: id } });
  });

  return r;
}
