import { AGENT_EDITOR_DEFAULTS } from '@contract/agent/defaults.js';
import { agentDialogFields } from '@contract/agent/dialog.js';
import { withStorageLevel } from '@contract/agent/editor.js';
import type { AgentListQuery, AgentSort } from '@contract/agent/query.js';
import type { Agent, AgentListItem } from '@contract/agent/responses.js';
import type { AgentDoc, AgentSavePayload } from '@contract/agent/save.js';
import type { AgentSortField } from '@contract/agent/sort.js';
import type { Kysely, Selectable } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import { lowerContains } from '../../platform/db/contains.js';
import type { AgentsTable, DB } from '../../platform/db/schema.js';

type AgentRow = Selectable<AgentsTable>;

/** The stored document of a save payload: company/account are dropped (ownership comes from the token). */
export function docOf(payload: AgentSavePayload): AgentDoc {
  const { name, prompt, message, settings, editor, kind, flow } = payload;
  const doc: AgentDoc = { name, prompt, message, settings, editor };
  // a single-prompt agent keeps no flow
  return kind === 'conversation_flow' ? { ...doc, kind, ...(flow ? { flow } : {}) } : doc;
}

/** The columns the list filters and sorts on, projected from the document. */
function projection(doc: AgentDoc) {
  return {
    agent_name: doc.name,
    agent_name_lower: doc.name.toLowerCase(),
    voice_id: doc.settings.tts.options.voice_id,
    voice_model: doc.settings.tts.options.model,
    llm_model: doc.settings.llm.options.model,
    language: doc.settings.stt.options.language,
    doc: JSON.stringify(doc),
  };
}

function parseDoc(text: string): AgentDoc {
  const doc = JSON.parse(text) as AgentDoc;
  // fields added to the editor later get their defaults on read
  // a document saved before the storage levels has only the old switch: its level is read from it
  const stored: { dataStorage?: unknown } = doc.editor ?? {};
  return { ...doc, editor: withStorageLevel({ ...AGENT_EDITOR_DEFAULTS, ...doc.editor, dataStorage: stored.dataStorage }) };
}

/** A list row: the agent without prompt, message, editor and flow. */
export function rowToListItem(row: AgentRow): AgentListItem {
  const { prompt: _p, message: _m, editor: _e, flow: _f, ...item } = rowToAgent(row);
  return item;
}

export function rowToAgent(row: AgentRow): Agent {
  const doc = parseDoc(row.doc);
  return {
    _id: row.id,
    name: doc.name,
    prompt: doc.prompt,
    message: doc.message,
    settings: doc.settings,
    editor: doc.editor,
    // documents stored before flows have no kind: they are single-prompt agents
    kind: doc.kind ?? 'single_prompt',
    ...(doc.kind === 'conversation_flow' && doc.flow ? { flow: doc.flow } : {}),
    ...agentDialogFields(doc),
    company: row.company_id,
    account: row.account_id ?? '',
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewAgent {
  companyId: string;
  accountId: string | null;
  doc: AgentDoc;
  now: Date;
}

export function newAgentRow({ companyId, accountId, doc, now }: NewAgent): AgentRow {
  const at = now.toISOString();
  return {
    id: newId(now),
    company_id: companyId,
    account_id: accountId,
    ...projection(doc),
    version: 1,
    created_at: at,
    updated_at: at,
  };
}

export async function insertAgent(db: Kysely<DB>, agent: NewAgent): Promise<Agent> {
  const row = newAgentRow(agent);
  await db.insertInto('agents').values(row).execute();
  return rowToAgent(row);
}

/** Inserts many rows in chunks (seeding, benchmarks); run it inside a transaction for speed. */
export async function insertAgentRows(db: Kysely<DB>, rows: AgentRow[]): Promise<void> {
  // 13 columns a row: stays under SQLite's and PostgreSQL's bound-parameter limits
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('agents')
      .values(rows.slice(i, i + 500))
      .execute();
}

export async function findAgent(db: Kysely<DB>, companyId: string, id: string): Promise<Agent | undefined> {
  const row = await db
    .selectFrom('agents')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && rowToAgent(row);
}

const SORT_COLUMNS = {
  agent_name: 'agent_name_lower',
  updatedAt: 'updated_at',
  createdAt: 'created_at',
  voice_id: 'voice_id',
  voice_model: 'voice_model',
} as const satisfies Record<AgentSortField, keyof AgentsTable>;

/**
 * The list's total order: the requested keys, then (unless a timestamp key was given) the update
 * time in the direction opposite to the last key, then the id. So 'name A-Z' shows equal names
 * newest first, 'name Z-A' is exactly its reverse, and every single-key sort and the default (most
 * recently updated first) match one index of migration 003 read forwards or backwards.
 */
export function totalOrder(sort: AgentSort): [column: keyof AgentsTable, desc: boolean][] {
  const keys: [keyof AgentsTable, boolean][] = (sort.length > 0 ? sort : ([['updatedAt', -1]] as AgentSort)).map(
    ([field, dir]) => [SORT_COLUMNS[field], dir === -1],
  );
  if (!keys.some(([c]) => c === 'updated_at' || c === 'created_at')) keys.push(['updated_at', !keys[keys.length - 1]![1]]);
  keys.push(['id', keys[keys.length - 1]![1]]);
  return keys;
}

/** A search's first read: enough ids to answer the first pages and, with few matches, the total. */
export const SEARCH_FIRST_READ = 100;

/**
 * One page of a company's agents (search: case-insensitive substring of the name). Two steps: the
 * page's ids come from a covering index (deep OFFSETs never read the large `doc`), then those rows
 * are read by id.
 *
 * A substring search cannot seek an index: both the page and the count test every index entry of
 * the company (with few matches the LIMIT never stops the walk early). So the test per entry is a
 * plain substring search (`lowerContains`), not a LIKE pattern match, and a search within the first
 * SEARCH_FIRST_READ rows reads up to that many ids in order first: when the matches are fewer (the
 * slow few-match case), that one walk answers both the page and the total, and the count query only
 * runs for searches with more matches (whose walk for the ids stopped early).
 */
export async function listAgents(
  db: Kysely<DB>,
  companyId: string,
  q: AgentListQuery,
): Promise<{ agents: AgentListItem[]; total: number }> {
  let base = db.selectFrom('agents').where('company_id', '=', companyId);
  if (q.search) base = base.where(lowerContains(db, 'agent_name_lower', q.search));
  const count = async () => Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  let ordered = base.select('id');
  for (const [column, desc] of totalOrder(q.sort)) ordered = ordered.orderBy(column, desc ? 'desc' : 'asc');
  const offset = (q.page - 1) * q.limit;

  let ids: { id: string }[];
  let total: number;
  if (q.search && offset + q.limit <= SEARCH_FIRST_READ) {
    const first = await ordered.limit(SEARCH_FIRST_READ + 1).execute();
    ids = first.slice(offset, offset + q.limit);
    total = first.length <= SEARCH_FIRST_READ ? first.length : await count();
  } else {
    [ids, total] = await Promise.all([ordered.limit(q.limit).offset(offset).execute(), count()]);
  }
  if (ids.length === 0) return { agents: [], total };
  // by primary key only: the ids were chosen within the company a moment ago
  const rows = await db
    .selectFrom('agents')
    .selectAll()
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  // a row deleted between the two reads is skipped
  const agents = ids.flatMap(({ id }) => {
    const row = byId.get(id);
    return row ? [rowToListItem(row)] : [];
  });
  return { agents, total };
}

export type UpdateResult = { kind: 'updated'; agent: Agent } | { kind: 'not_found' } | { kind: 'conflict' };

/**
 * Reads the agent, applies `change` to its document and writes it back with version + 1. A stale
 * `expectedVersion`, or a concurrent writer between the read and the write, answers `conflict`.
 */
export async function updateAgent(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  change: (doc: AgentDoc) => AgentDoc,
  opts: { expectedVersion?: number | undefined; now: Date },
): Promise<UpdateResult> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('agents')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return { kind: 'not_found' };
    if (opts.expectedVersion !== undefined && opts.expectedVersion !== row.version) return { kind: 'conflict' };
    const next: AgentRow = {
      ...row,
      ...projection(change(parseDoc(row.doc))),
      version: row.version + 1,
      updated_at: opts.now.toISOString(),
    };
    const { id: _id, company_id: _c, account_id: _a, created_at: _t, ...changes } = next;
    const res = await trx
      .updateTable('agents')
      .set(changes)
      .where('company_id', '=', companyId)
      .where('id', '=', id)
      .where('version', '=', row.version)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return { kind: 'conflict' };
    return { kind: 'updated', agent: rowToAgent(next) };
  });
}

/**
 * Deletes the agent. False when there is no such agent. The phone numbers that used it let go on their
 * own: their inbound/outbound_agent_id reference agents ON DELETE SET NULL (migration 004).
 */
export async function deleteAgent(db: Kysely<DB>, companyId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('agents').where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
