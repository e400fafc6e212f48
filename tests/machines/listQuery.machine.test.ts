import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { ApiError } from '../../src/api/errors.js';
import { type ListPage, type ListQuery, listQueryMachine } from '../../src/machines/listQuery.machine.js';
import { describeModel } from './harness.js';

const first: ListQuery = { search: '', sort: '', page: 0, size: 10 };
const second: ListQuery = { search: 'nurse', sort: 'agent_name:asc', page: 0, size: 10 };
const pageOf = (n: number): ListPage => ({ rows: Array.from({ length: n }, (_, i) => ({ id: `a${i}` })), total: 25 });

describeModel('listQuery', listQueryMachine, {
  inputs: [{ query: first }, { query: first, page: pageOf(4) }],
  events: {
    'query.change': [
      { type: 'query.change', query: first },
      { type: 'query.change', query: second },
    ],
    'xstate.done.actor.loadPage': [{ type: 'xstate.done.actor.loadPage', output: pageOf(2) }],
    'xstate.error.actor.loadPage': [
      { type: 'xstate.error.actor.loadPage', error: new ApiError({ kind: 'http', status: 500, serverMessage: 'Database down' }) },
    ],
  },
});

/** A controllable loader: every call waits until the test settles it. */
function loader() {
  const calls: { query: ListQuery; resolve: (p: ListPage) => void; reject: (e: unknown) => void }[] = [];
  const logic = fromPromise<ListPage, ListQuery>(
    ({ input }) =>
      new Promise<ListPage>((resolve, reject) => {
        calls.push({ query: input, resolve, reject });
      }),
  );
  return { calls, actor: createActor(listQueryMachine.provide({ actors: { loadPage: logic } }), { input: { query: first } }) };
}

describe('listQuery behaviour', () => {
  it('loads the first query, keeps the last page while the next loads, and shows only the newest answer', async () => {
    const { calls, actor } = loader();
    actor.start();
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    expect(calls.map((c) => c.query)).toEqual([first]);
    calls[0]!.resolve(pageOf(10));
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(actor.getSnapshot().context.page?.rows).toHaveLength(10);

    // two quick changes: the first load is abandoned, the page stays until the newest answer
    const third = { ...second, page: 1 };
    actor.send({ type: 'query.change', query: second });
    actor.send({ type: 'query.change', query: third });
    expect(calls.map((c) => c.query)).toEqual([first, second, third]);
    expect(actor.getSnapshot().context.page?.rows).toHaveLength(10);
    calls[2]!.resolve(pageOf(3));
    calls[1]!.resolve(pageOf(7));
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    await new Promise((r) => setTimeout(r, 0));
    expect(actor.getSnapshot().context.page?.rows).toHaveLength(3);
    expect(actor.getSnapshot().context.query).toEqual(third);
  });

  it('starts ready with a page handed over in the input, without loading it again', () => {
    const calls: ListQuery[] = [];
    const logic = fromPromise<ListPage, ListQuery>(({ input }) => {
      calls.push(input);
      return new Promise<ListPage>(() => {});
    });
    const actor = createActor(listQueryMachine.provide({ actors: { loadPage: logic } }), {
      input: { query: first, page: pageOf(4) },
    }).start();
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    expect(actor.getSnapshot().context.page?.rows).toHaveLength(4);
    expect(calls).toEqual([]);
    actor.send({ type: 'query.change', query: second });
    expect(calls).toEqual([second]);
  });

  it('ignores a change to the same query, reloads on list.reload, and retries after a failure', async () => {
    const { calls, actor } = loader();
    actor.start();
    calls[0]!.resolve(pageOf(2));
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'query.change', query: { ...first } });
    expect(calls).toHaveLength(1);

    actor.send({ type: 'list.reload' });
    expect(calls.map((c) => c.query)).toEqual([first, first]);
    calls[1]!.reject(new ApiError({ kind: 'network' }));
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('error')).toBe(true));
    expect(actor.getSnapshot().context.error).toBe('Could not reach the server. Check your connection and try again.');
    expect(actor.getSnapshot().context.page?.rows).toHaveLength(2);

    actor.send({ type: 'list.reload' });
    calls[2]!.resolve(pageOf(1));
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(actor.getSnapshot().context.error).toBeUndefined();
    expect(actor.getSnapshot().context.page?.rows).toHaveLength(1);
  });
});
