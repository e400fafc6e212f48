import { AgentUpdateBodySchema, applyDialogPatch } from '@contract/agent/dialog.js';
import { agentFlowProblems, flowProblemsMessage } from '@contract/agent/flow.js';
import { SECRET_MASK } from '@contract/agent/functions.js';
import { MCP_TOOLS_MESSAGES, McpToolsBodySchema } from '@contract/agent/mcp-tools.js';
import { AGENT_MESSAGES } from '@contract/agent/messages.js';
import { AgentListQuerySchema } from '@contract/agent/query.js';
import { type AgentDoc, type AgentSavePayload, AgentSavePayloadSchema } from '@contract/agent/save.js';
import { Hono } from 'hono';
import { isId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { limitBody } from '../../platform/http/body-limit.js';
import { HttpError, jsonBody, ok, parseWith, readJson } from '../../platform/http/http.js';
import { idempotent } from '../../platform/http/idempotency.js';
import { listQuery } from '../../platform/http/list-query.js';
import { enforce, type Limit } from '../../platform/http/ratelimit.js';
import type { AppEnv } from '../../platform/http/types.js';
import { openHeaders } from '../../voice/tools/custom/headers.js';
import { toolUrlProblem } from '../../voice/tools/custom/http.js';
import { listMcpTools, openMcpSession } from '../../voice/tools/mcp/index.js';
import { toolKindOf } from '../../voice/tools/registry.js';
import { ToolError } from '../../voice/tools/types.js';
import { requireAuth } from '../auth/index.js';
import { companyDefaultDataStorage } from '../company/index.js';
import { ownKnowledgeBaseIds } from '../knowledge/index.js';
import { checkWebhookUrl } from '../webhooks/index.js';
import { deleteAgent, docOf, findAgent, insertAgent, listAgents, updateAgent } from './agent.repo.js';
import { functionWithHeaders, maskAgent, sealFunctionHeaders, storedHeaderValue } from './function-secrets.js';

/** Agent bodies carry long prompts and knowledge-base selections. */
const AGENT_BODY_MAX = 2 * 1024 * 1024;

const notFound = () => new HttpError(404, AGENT_MESSAGES.notFound);
/** A malformed id answers 404 like a missing or foreign one. */
const agentId = (id: string) => {
  if (!isId(id)) throw notFound();
  return id;
};

/**
 * The document with every knowledge-base link that is not one of the company's taken out: the selection
 * keeps its name and sources (the caller's own copy), but an id of the server's form that is not the
 * company's (another company's, or a deleted one) is dropped, so an agent never points at another
 * company's knowledge. Every such id is dropped alike, so the answer tells nothing about other companies.
 * Ids of another form can name no knowledge base at all and are kept as the client sent them. A flow's
 * conversation nodes' `knowledge_base_ids` are kept to the company's the same way.
 */
async function ownKnowledgeBases(db: AppDeps['db']['db'], companyId: string, doc: AgentDoc): Promise<AgentDoc> {
  const selected = doc.editor.selectedKnowledgeBases;
  const nodeIds = (doc.flow?.nodes ?? []).flatMap((n) => (n.type === 'conversation' ? (n.knowledge_base_ids ?? []) : []));
  const wanted = [
    ...new Set([...selected.flatMap((k) => (k.knowledge_base_id ? [k.knowledge_base_id] : [])), ...nodeIds].filter(isId)),
  ];
  if (wanted.length === 0) return doc;
  const own = new Set<string>();
  // a flow may name many: asked in chunks, under both databases' bound-parameter limits
  for (let i = 0; i < wanted.length; i += 500)
    for (const id of await ownKnowledgeBaseIds(db, companyId, wanted.slice(i, i + 500))) own.add(id);
  if (own.size === wanted.length) return doc;
  const foreign = (id: string | undefined) => id !== undefined && isId(id) && !own.has(id);
  const unlink = ({ knowledge_base_id: _, ...rest }: (typeof selected)[number]) => rest;
  const flow = doc.flow && {
    ...doc.flow,
    nodes: doc.flow.nodes.map((n) =>
      n.type === 'conversation' && n.knowledge_base_ids?.some(foreign)
        ? { ...n, knowledge_base_ids: n.knowledge_base_ids.filter((id) => !foreign(id)) }
        : n,
    ),
  };
  return {
    ...doc,
    editor: {
      ...doc.editor,
      selectedKnowledgeBases: selected.map((k) => (foreign(k.knowledge_base_id) ? unlink(k) : k)),
    },
    ...(flow ? { flow } : {}),
  };
}

/**
 * The agent's two webhook URLs (Agent Level Webhook, Inbound Call Webhook) checked like the company's: a
 * private or loopback address is refused when saved (400 naming the field), and again when sent.
 */
async function checkAgentWebhooks(deps: AppDeps, doc: AgentDoc): Promise<void> {
  await checkWebhookUrl(deps, doc.editor.agentLevelWebhook, 'agentLevelWebhook');
  await checkWebhookUrl(deps, doc.editor.inboundCallWebhook, 'inboundCallWebhook');
}

/**
 * Each function checked by its type beyond the schema (a custom function's or MCP server's URL must be
 * public unless ALLOW_PRIVATE_TOOL_URLS; a custom function's parameters must compile as JSON Schema): the
 * first problem answers 400 naming the function.
 */
async function checkFunctions(deps: AppDeps, doc: AgentDoc): Promise<void> {
  for (const fn of doc.editor.functions ?? []) {
    if (fn.type === 'end_call' || fn.type === 'transfer') continue;
    const kind = toolKindOf(fn.type);
    const problem = await kind?.check?.(fn as never, deps);
    if (problem) {
      const message = `Function ${fn.name}: ${problem}`;
      throw new HttpError(400, message, { errors: { functions: message } });
    }
  }
}

/**
 * A conversation-flow agent's flow checked against the agent's own functions and variables: every problem
 * answers 400 at once, each naming its node (and edge) in `problems`.
 */
function checkFlow(doc: AgentDoc): void {
  const problems = agentFlowProblems(doc);
  if (problems.length === 0) return;
  const message = flowProblemsMessage(problems);
  throw new HttpError(400, message, { errors: { flow: message }, problems });
}

/**
 * A full save (PUT) without `kind` keeps the stored kind and, for a flow agent, the stored flow unless it
 * sends one: a client that knows nothing of flows never turns a flow agent into a single-prompt one.
 * `next` carries the flow the save sent (checked like the rest of the document), if any.
 */
function keepKind(given: AgentSavePayload, next: AgentDoc, stored: AgentDoc): AgentDoc {
  if (given.kind !== undefined) return next;
  const { flow, ...rest } = next;
  if (stored.kind !== 'conversation_flow') return rest;
  const kept = flow ?? stored.flow;
  return { ...rest, kind: stored.kind, ...(kept ? { flow: kept } : {}) };
}

/** How long 'Load tools' waits for an MCP server (initialize and the whole list). */
const LOAD_TOOLS_MS = 10_000;
/** 'Load tools' reaches out to a URL the company chose: at most this many a minute per company. */
export const LOAD_TOOLS_LIMIT: Limit = { name: 'mcp-tools:company', max: 30, windowMs: 60_000 };

/** /agent: the company's agents (list, read, create, update, delete). Company and account come from the token. */
/** Whether a create request chose the agent's data-storage level itself (the level, or the old switch). */
const hasDataStorage = (raw: unknown): boolean => {
  const editor = typeof raw === 'object' && raw !== null ? (raw as { editor?: unknown }).editor : undefined;
  return typeof editor === 'object' && editor !== null && ('dataStorage' in editor || 'sensitiveDataStorage' in editor);
};

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
    return ok(c, { data: { agent: maskAgent(agent) } });
  });

  r.post('/', idempotent(deps), async (c) => {
    const raw = await readJson(c);
    const payload = parseWith(AgentSavePayloadSchema, raw);
    const { companyId, accountId } = c.get('auth');
    // an agent created without a data-storage level gets the company's default (Settings > Company)
    if (!hasDataStorage(raw)) payload.editor = { ...payload.editor, dataStorage: await companyDefaultDataStorage(db, companyId) };
    // the agent and the stored answer of its Idempotency-Key commit together (docs/reliability.md)
    const given = await ownKnowledgeBases(db, companyId, docOf(payload));
    checkFlow(given);
    await checkAgentWebhooks(deps, given);
    await checkFunctions(deps, given);
    const doc = sealFunctionHeaders(deps, companyId, given);
    const answer = await db.transaction().execute(async (trx) => {
      const agent = await insertAgent(trx, { companyId, accountId, doc, now: deps.clock.now() });
      const body = { success: true, msg: AGENT_MESSAGES.created, data: { agent: maskAgent(agent) } };
      await c.get('idempotency').storeWith(trx, 201, body);
      return body;
    });
    return c.json(answer, 201);
  });

  // a versioned update retried after a lost answer gets that answer again instead of 409
  r.put('/:id', idempotent(deps), async (c) => {
    const id = agentId(c.req.param('id'));
    const body = await jsonBody(c, AgentUpdateBodySchema);
    const { version, ...fields } = body;
    const { companyId } = c.get('auth');
    // the full save payload replaces the document; a dialog patch is applied onto it
    let change: (doc: AgentDoc) => AgentDoc;
    if ('settings' in fields) {
      // without a kind, a flow sent along is kept for keepKind to decide on
      const sent = fields.kind === undefined && fields.flow ? { ...docOf(fields), flow: fields.flow } : docOf(fields);
      const full = await ownKnowledgeBases(db, companyId, sent);
      await checkAgentWebhooks(deps, full);
      await checkFunctions(deps, full);
      if (fields.kind !== undefined) checkFlow(full);
      // masked header values keep what the stored document has
      change = (stored) => {
        const next = keepKind(fields, sealFunctionHeaders(deps, companyId, full, stored), stored);
        checkFlow(next);
        return next;
      };
    } else change = (doc) => applyDialogPatch(doc, fields);
    const result = await updateAgent(db, companyId, id, change, {
      expectedVersion: version,
      now: deps.clock.now(),
    });
    if (result.kind === 'not_found') throw notFound();
    if (result.kind === 'conflict') throw new HttpError(409, AGENT_MESSAGES.conflict);
    return ok(c, { msg: AGENT_MESSAGES.updated, data: { agent: maskAgent(result.agent) } });
  });

  // 'Load tools' of an MCP server function in the editor
  r.post('/mcp-tools', async (c) => {
    const body = await jsonBody(c, McpToolsBodySchema);
    const { companyId } = c.get('auth');
    await enforce(db, LOAD_TOOLS_LIMIT, companyId, deps.clock.now());
    let stored: ReturnType<typeof functionWithHeaders>;
    if (body.agent_id !== undefined) {
      const saved = await findAgent(db, companyId, agentId(body.agent_id));
      if (!saved) throw notFound();
      stored = functionWithHeaders(saved, body.function_id);
    }
    const headers: Record<string, string> = {};
    for (const [i, h] of body.headers.entries()) {
      if (h.value !== SECRET_MASK) {
        if (h.value !== '') headers[h.name.toLowerCase()] = h.value;
        continue;
      }
      const sealed = storedHeaderValue(stored, h, i);
      if (sealed === '') {
        const message = MCP_TOOLS_MESSAGES.headerAgain(h.name);
        throw new HttpError(400, message, { errors: { headers: message } });
      }
      try {
        Object.assign(headers, openHeaders(deps.secrets.masterKey, companyId, [{ name: h.name, value: sealed }]));
      } catch (e) {
        if (!(e instanceof ToolError)) throw e;
        throw new HttpError(400, MCP_TOOLS_MESSAGES.headerAgain(h.name));
      }
    }
    const refused = await toolUrlProblem(deps, body.url);
    if (refused) throw new HttpError(400, refused, { errors: { url: refused } });
    const options = { signal: AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(LOAD_TOOLS_MS)]), timeoutMs: LOAD_TOOLS_MS };
    try {
      const session = await openMcpSession(deps, body.url, headers, options);
      try {
        return ok(c, { tools: await listMcpTools(session, options) });
      } finally {
        await session.close();
      }
    } catch (e) {
      if (e instanceof ToolError) throw new HttpError(502, MCP_TOOLS_MESSAGES.unreachable(e.message));
      if (options.signal.aborted)
        throw new HttpError(502, MCP_TOOLS_MESSAGES.unreachable('the MCP server did not answer in time'));
      throw e;
    }
  });

  r.delete('/:id', async (c) => {
    const id = agentId(c.req.param('id'));
    if (!(await deleteAgent(db, c.get('auth').companyId, id))) throw notFound();
    return ok(c, { msg: AGENT_MESSAGES.deleted, data: { _id: id } });
  });

  return r;
}
