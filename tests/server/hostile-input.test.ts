/**
 * The same class beyond knowledge-base documents: input a tenant (or anyone) sends that made
 * the server hold its event loop. Each case sends the hostile shape and checks the answer is a clear 4xx
 * or the right result, and that the work ran in bounded steps (the event loop turned while it ran).
 */
import type { InsertQueryNode, KyselyPlugin, RawNode, RootOperationNode } from 'kysely';
import { expect, it } from 'vitest';
import { ingestRecipients } from '../../server/modules/batches/batch.ingest.js';
import { deleteCompany } from '../../server/modules/company/company.repo.js';
import { createKnowledgeWorker } from '../../server/modules/knowledge/kb.worker.js';
import { withoutTrailingSlashes } from '../../server/platform/http/idempotency.js';
import { JSON_DEPTH_MAX } from '../../src/api/contract/json.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { type Body, call, insertCalls, insertNumber } from './seed.js';

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const TOO_DEEP = `Malformed JSON body: JSON nested more than ${JSON_DEPTH_MAX} levels deep`;

/** Counts the turns of the event loop (setImmediate callbacks) while `work` runs. */
async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const spin = () => {
    turns++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    running = false;
  }
}

/**
 * Records, in order, the turns of the event loop and the statements `name` recognises (by their query
 * node), while the returned deps are used; stop() ends the recording.
 */
function watchStatements(t: TestApp, name: (node: RootOperationNode) => string | undefined) {
  const events: string[] = [];
  const recorder: KyselyPlugin = {
    transformQuery({ node }) {
      const label = name(node);
      if (label) events.push(label);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  let running = true;
  const spin = () => {
    events.push('turn');
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  return {
    deps: { ...t.deps, db: { ...t.deps.db, db: t.deps.db.db.withPlugin(recorder) } },
    events,
    stop: () => {
      running = false;
    },
  };
}

/** How many turns of the loop came between the first and the last `label` statement. */
const turnsBetween = (events: string[], label: string) =>
  events.slice(events.indexOf(label), events.lastIndexOf(label)).filter((e) => e === 'turn').length;

async function batchOf(t: TestApp, token: string): Promise<string> {
  const res = await call(t, 'POST', '/batch-call', {
    token,
    body: { name: 'Hostile', fromNumber: '+14155550101', sendMode: 'now' },
    headers: { 'Idempotency-Key': `hostile-${Math.random()}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body.batch as Body)._id;
}

const uploadCsv = (t: TestApp, token: string, id: string, csv: string) =>
  call(t, 'POST', `/batch-call/${id}/recipients`, { token, body: csv, headers: { 'Content-Type': 'text/csv' } });

it('trims the trailing slashes of a request path in one pass', () => {
  expect(withoutTrailingSlashes('/api/v1/agent///')).toBe('/api/v1/agent');
  expect(withoutTrailingSlashes('///')).toBe('');
  // a regular expression tried each slash of the run: hours for this one
  const run = `/${'/'.repeat(1_000_000)}x`;
  expect(withoutTrailingSlashes(run)).toBe(run);
});

describeEachDb('hostile input beyond documents', (kind) => {
  const t = useTestApp(kind);

  it('refuses JSON nested past the limit with a 400 before parsing it, on public and signed-in routes', async () => {
    // 4 MB of nesting: the register route takes JSON up to its photo limit
    const register = await t().req('POST', '/api/v1/account/register', {
      body: deep(2_000_000),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(register.status).toBe(400);
    expect(await register.json()).toMatchObject({ success: false, msg: TOO_DEEP });
    const notFound = await t().req('POST', '/api/v1/client/not-found', {
      body: `{"path":${deep(500_000)}}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(notFound.status).toBe(400);

    const { token } = await signUp(t());
    const agent = await t().req('POST', '/api/v1/agent', {
      token,
      body: `{"name":"x","settings":${deep(900_000)}}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(agent.status).toBe(400);
    expect(await agent.json()).toMatchObject({ msg: TOO_DEEP });
    const form = new FormData();
    form.set('knowledge_base_name', 'Deep');
    form.append('knowledge_base_texts', `{"title":"t","text":"x","more":${deep(400_000)}}`);
    const kb = await call(t(), 'POST', '/knowledge-base', { token, body: form });
    expect(kb).toMatchObject({ status: 400, body: { success: false, msg: 'Each text must be JSON with a title and a text' } });

    // strings may hold any brackets: only structure counts
    const fine = await t().req('POST', '/api/v1/client/not-found', {
      body: JSON.stringify({ path: `/${'[{'.repeat(1000)}` }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(fine.status).toBe(200);
  });

  it('reads a recipients CSV in bounded steps even when it arrives in one piece', async () => {
    // 250,000 rows, none valid, so the database has nothing to do: what runs is the parser and the checks
    const csv = ['phone_number,name', ...Array.from({ length: 250_000 }, (_, i) => `nope${i},Name ${i}`)].join('\n');
    const bytes = new TextEncoder().encode(csv);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const target = { batchId: 'b', companyId: 'c', uploadId: 'u' };
    const { result, turns } = await loopTurnsDuring(() => ingestRecipients(t().deps, body, target));
    expect(result).toMatchObject({ total: 250_000, valid: 0, invalid: 250_000 });
    // a turn of the event loop between the 8 KB pieces handed to the parser
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(bytes.length / 8192) - 1);
  });

  it('drops a replaced recipients list in bounded steps', async () => {
    const { token, companyId } = await signUp(t());
    await insertNumber(t(), companyId, '+14155550101');
    const id = await batchOf(t(), token);
    const rows = Array.from({ length: 23_000 }, (_, i) => `+1415${String(5_000_000 + i)}`);
    expect((await uploadCsv(t(), token, id, ['phone_number', ...rows].join('\n'))).body.valid).toBe(23_000);
    const { result, turns } = await loopTurnsDuring(() => uploadCsv(t(), token, id, 'phone_number\n+14155550000\n'));
    expect(result.body).toMatchObject({ valid: 1 });
    // 23,000 rows go in 5 statements with a turn of the loop between them (SQLite runs on the loop; on
    // PostgreSQL every statement is a wait the loop turns through anyway)
    expect(turns).toBeGreaterThanOrEqual(4);
    const left = await t().deps.db.db.selectFrom('batch_recipients').select('phone_number').execute();
    expect(left).toEqual([{ phone_number: '+14155550000' }]);
  });

  it('deletes a company with many calls in bounded steps on SQLite, and only that company', async () => {
    const [a, b] = [await signUp(t()), await signUp(t())];
    const calls = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        time: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
        duration: 30,
        cost: 0.05,
      }));
    await insertCalls(t(), a.companyId, calls(3_500));
    await insertCalls(t(), b.companyId, calls(3));
    // the order of the turns of the event loop and of the statements that delete calls
    const watch = watchStatements(t(), (node) =>
      node.kind === 'RawNode' && /^delete from calls/.test((node as RawNode).sqlFragments.join('?')) ? 'delete calls' : undefined,
    );
    await deleteCompany(watch.deps, a.companyId).finally(watch.stop);
    const events = watch.events;
    if (kind === 'sqlite') {
      // 1,000 calls per statement, the loop turning between them
      expect(events.filter((e) => e === 'delete calls')).toHaveLength(4);
      expect(turnsBetween(events, 'delete calls')).toBeGreaterThanOrEqual(3);
    } else expect(events).not.toContain('delete calls'); // one transaction: PostgreSQL does not hold the event loop
    const left = await t().deps.db.db.selectFrom('calls').select('company_id').execute();
    expect(left).toEqual([{ company_id: b.companyId }, { company_id: b.companyId }, { company_id: b.companyId }]);
    expect(await t().deps.db.db.selectFrom('companies').select('id').where('id', '=', a.companyId).execute()).toEqual([]);
  });

  it('stores the chunks of a large knowledge base with turns of the event loop between its statements', async () => {
    const { token } = await signUp(t());
    const form = new FormData();
    form.set('knowledge_base_name', 'Large');
    const paragraph = `${'Visiting hours are from ten to five. '.repeat(25)}\n\n`;
    form.append('knowledge_base_files', new Blob([paragraph.repeat(1_000)]), 'large.txt');
    expect((await t().req('POST', '/api/v1/knowledge-base', { token, body: form })).status).toBe(201);
    const watch = watchStatements(t(), (node) =>
      node.kind === 'InsertQueryNode' && (node as InsertQueryNode).into?.table.identifier.name === 'knowledge_base_chunks'
        ? 'insert chunks'
        : undefined,
    );
    const worker = createKnowledgeWorker(watch.deps);
    try {
      expect(await worker.runOnce()).toBe(true);
    } finally {
      watch.stop();
      await worker.stop();
    }
    // 1,000 chunks, 200 a statement
    expect(watch.events.filter((e) => e === 'insert chunks')).toHaveLength(5);
    expect(turnsBetween(watch.events, 'insert chunks')).toBeGreaterThanOrEqual(4);
  });
});
