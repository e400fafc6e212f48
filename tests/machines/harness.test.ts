import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { sidebarMachine } from '../../src/machines/sidebar.machine.js';
import {
  assertEveryTransitionWalked,
  describeModel,
  getModelPaths,
  replayPath,
  statesWithoutInvariant,
  testMachineModel,
  unknownInvariantKeys,
  withExploration,
} from './harness.js';
import type { Invariant, InvariantTable } from './invariants/types.js';

/** A machine using everything the harness must drive: invoke done/error, after (number and named), always, final. */
const fetcher = setup({
  types: {
    context: {} as { attempts: number; name: string | null },
    events: {} as { type: 'fetch' } | { type: 'cancel' } | { type: 'note.add' },
  },
  actors: {
    loadThing: fromPromise(async (): Promise<{ name: string; archived: boolean }> => {
      throw new Error('the real actor must never run in model tests');
    }),
  },
  actions: { noteAdded: () => {} },
  delays: { retryDelay: 2500 },
  guards: {
    isArchived: ({ event }) => (event as unknown as { output: { archived: boolean } }).output.archived,
    isOffline: ({ event }) => (event as unknown as { error?: Error }).error?.message === 'offline',
    canRetry: ({ context }) => context.attempts < 2,
  },
}).createMachine({
  id: 'fetcher',
  context: { attempts: 0, name: null },
  initial: 'idle',
  states: {
    idle: {
      on: { fetch: { target: 'loading', actions: assign({ attempts: 0 }) }, 'note.add': { actions: 'noteAdded' } },
    },
    loading: {
      entry: assign({ attempts: ({ context }) => context.attempts + 1 }),
      invoke: {
        id: 'load',
        src: 'loadThing',
        onDone: [
          { guard: 'isArchived', target: 'archived' },
          { target: 'loaded', actions: assign({ name: ({ event }) => event.output.name }) },
        ],
        onError: 'failed',
      },
      after: { 10000: 'timedOut' },
      on: { cancel: 'idle' },
    },
    failed: {
      description: 'Waits before retrying, unless the browser is offline.',
      always: { guard: 'isOffline', target: 'idle' },
      after: { retryDelay: [{ guard: 'canRetry', target: 'loading' }, { target: 'gaveUp' }] },
    },
    timedOut: { on: { fetch: { target: 'loading', actions: assign({ attempts: 0 }) } } },
    archived: { type: 'final' },
    loaded: { type: 'final' },
    gaveUp: { type: 'final' },
  },
});

const fetchEvents = {
  'xstate.done.actor.load': [
    { type: 'xstate.done.actor.load', output: { name: 'Ava', archived: false } },
    { type: 'xstate.done.actor.load', output: { name: 'Old', archived: true } },
  ],
  'xstate.error.actor.load': [
    { type: 'xstate.error.actor.load', error: new Error('offline') },
    { type: 'xstate.error.actor.load', error: new Error('500') },
  ],
};

describe('model harness', () => {
  it('walks invoke done/error, guarded and delayed transitions of a real machine', () => {
    const coverage = testMachineModel(fetcher, { events: fetchEvents });
    expect(coverage.missed).toEqual([]);
    const walked = coverage.declared.filter((d) => coverage.walked.has(d.key)).map((d) => `${d.source} ${d.eventLabel}`);
    expect(walked).toEqual(
      expect.arrayContaining([
        'fetcher.loading done(load)',
        'fetcher.loading error(load)',
        'fetcher.loading after 10000ms',
        'fetcher.failed after retryDelay',
        'fetcher.idle note.add',
        'fetcher.failed always',
      ]),
    );
    // both onDone branches (guarded archived, and loaded with its output) were walked
    expect(coverage.declared.filter((d) => d.event === 'xstate.done.actor.load').every((d) => coverage.walked.has(d.key))).toBe(
      true,
    );
    // a path reaches `loaded` with the context the real assign produced
    const toLoaded = coverage.paths.find((p) => p.steps.at(-1)?.state.value === 'loaded');
    expect(toLoaded?.steps.at(-1)?.state.context).toEqual({ attempts: 1, name: 'Ava' });
    // retrying twice then giving up needs the real counter: attempts reached 2 on that path
    const gaveUp = coverage.paths.find((p) => p.steps.at(-1)?.state.value === 'gaveUp');
    expect(gaveUp?.steps.at(-1)?.state.context.attempts).toBe(2);
  });

  it('fails naming a transition no path walked (unreachable state)', () => {
    const machine = setup({ types: { events: {} as { type: 'go' } | { type: 'back' } } }).createMachine({
      id: 'm',
      initial: 'idle',
      states: {
        idle: { on: { go: 'busy' } },
        busy: { on: { back: 'idle' } },
        orphan: { description: 'nothing leads here', on: { go: 'idle' } },
      },
    });
    const coverage = testMachineModel(machine);
    expect(coverage.missed.map((m) => m.key)).toEqual(['m.orphan#go#0']);
    expect(() => assertEveryTransitionWalked('m', coverage)).toThrow(
      /1 of 3 declared transitions of "m".*\n {2}- m\.orphan --go--> m\.idle/,
    );
  });

  it('fails naming a guarded transition the given events never enable', () => {
    const machine = setup({
      types: { events: {} as { type: 'pick'; n: number } },
      guards: { isBig: ({ event }) => event.n > 10 },
    }).createMachine({
      id: 'picker',
      initial: 'waiting',
      states: { waiting: { on: { pick: [{ guard: 'isBig', target: 'big' }, { target: 'small' }] } }, big: {}, small: {} },
    });
    const only = testMachineModel(machine, { events: { pick: [{ type: 'pick', n: 1 }] } });
    expect(() => assertEveryTransitionWalked('picker', only)).toThrow('picker.waiting --pick [isBig]--> picker.big');
    const both = testMachineModel(machine, {
      events: {
        pick: [
          { type: 'pick', n: 1 },
          { type: 'pick', n: 11 },
        ],
      },
    });
    expect(both.missed).toEqual([]);
  });

  it('fails on the real sidebar when an input it needs is missing', () => {
    const coverage = testMachineModel(sidebarMachine, { input: {} });
    expect(() => assertEveryTransitionWalked('sidebar', coverage)).toThrow(
      'sidebar.deciding --always [startsCollapsed]--> sidebar.collapsed',
    );
  });

  it('fails when the real actor does not land where the path predicts', () => {
    const [path] = getModelPaths(sidebarMachine, { input: {} }).filter((p) => p.steps.length === 2);
    expect(path).toBeDefined();
    if (!path) return;
    const last = path.steps[1];
    if (!last) return;
    const forged = { ...path, steps: [path.steps[0], { ...last, state: path.steps[0]?.state }] } as typeof path;
    expect(() => replayPath(sidebarMachine, forged)).toThrow(/step 1/);
    // and the untouched path replays
    expect(replayPath(sidebarMachine, path).walked.size).toBe(2);
  });

  it('replays delayed transitions on the declared delay, not before', () => {
    const machine = setup({ delays: { short: 1000 } }).createMachine({
      id: 'timer',
      initial: 'a',
      states: { a: { after: { short: 'b' } }, b: { after: { 500: 'c' } }, c: { type: 'final' } },
    });
    // a provided delay longer than the declared one changes nothing: the harness reads the provided value
    const coverage = testMachineModel(machine, { implementations: { delays: { short: 60_000 } } });
    expect(coverage.missed).toEqual([]);
    expect(coverage.paths.map((p) => p.description)).toEqual(['a -xstate.after.short.timer.a-> b -xstate.after.500.timer.b-> c']);
  });

  it('reports an actor that crashes during a path', () => {
    const machine = setup({ actions: { explode: () => {} } }).createMachine({
      id: 'crashy',
      initial: 'a',
      states: { a: { on: { go: { target: 'b', actions: 'explode' } } }, b: {} },
    });
    const [path] = getModelPaths(machine);
    if (!path) throw new Error('no path');
    const opts = {
      implementations: {
        actions: {
          explode: () => {
            throw new Error('boom');
          },
        },
      },
    };
    expect(() => replayPath(machine, path, opts)).toThrow(/boom/);
  });
});

/** The fetcher's rules: one load at a time, only while loading; a loaded name is the answer's. */
const fetcherInvariants: InvariantTable = {
  always: (s, w) => expect(w.pending('loadThing').length).toBe(s.matches('loading') ? 1 : 0),
  states: {
    idle: (s) => expect(s.context.name).toBeNull(),
    loading: (s) => expect(s.context.attempts).toBeGreaterThan(0),
    failed: (s) => expect(s.context.attempts).toBeGreaterThan(0),
    timedOut: (s) => expect(s.context.name).toBeNull(),
    archived: (s) => expect(s.context.name).toBeNull(),
    loaded: (s, w) => expect(s.context.name).toBe((w.event as unknown as { output: { name: string } }).output.name),
    gaveUp: (s) => expect(s.context.attempts).toBe(2),
  },
};

describeModel('fetcher (harness example)', fetcher, { events: fetchEvents, invariants: fetcherInvariants });

describe('state invariants', () => {
  const toggler = setup({
    types: { context: {} as { on: boolean }, events: {} as { type: 'flip' } },
    actions: { announce: (_, _params: { on: boolean }) => {} },
    actors: { sync: fromPromise(async () => {}) },
  }).createMachine({
    id: 'toggler',
    context: { on: false },
    initial: 'off',
    states: {
      off: { on: { flip: { target: 'on', actions: [assign({ on: true }), { type: 'announce', params: { on: true } }] } } },
      on: {
        invoke: { src: 'sync', input: ({ context }) => ({ on: context.on }) },
        on: { flip: { target: 'off', actions: assign({ on: false }) } },
      },
    },
  });
  const table: InvariantTable = {
    states: {
      off: (s, w) => {
        expect(s.context.on).toBe(false);
        expect(w.pending()).toEqual([]);
      },
      on: (s, w) => {
        expect(s.context.on).toBe(true);
        expect(w.pending('sync').map((r) => r.input)).toEqual([{ on: true }]);
        if (w.event.type === 'flip')
          expect(w.actionsNow.map((a) => [a.type, a.params])).toContainEqual(['announce', { on: true }]);
      },
    },
  };

  it('are checked on every step, with what the fakes were asked and the effects run', () => {
    const coverage = testMachineModel(toggler, { invariants: table });
    expect(coverage.missed).toEqual([]);
  });

  it('fail naming the invariant, the step and the path when the machine breaks one', () => {
    const broken = toggler.provide({}) as typeof toggler;
    const wrong: InvariantTable = { states: { ...table.states, on: (s) => expect(s.context.on).toBe(false) } };
    expect(() => testMachineModel(broken, { invariants: wrong })).toThrow(
      /Invariant "state on" broken at step 1 \(flip\) of: off -flip-> on/,
    );
  });

  it('cover every state: a state without one and a key naming no state are reported', () => {
    expect(statesWithoutInvariant(toggler, { states: { off: table.states?.off as Invariant } })).toEqual(['on']);
    expect(statesWithoutInvariant(toggler, table)).toEqual([]);
    expect(unknownInvariantKeys(toggler, { states: { of: () => {} }, tags: { busy: () => {} } })).toEqual(['of', 'tag busy']);
  });

  it("a table's explore events and inputs are added to the model's own", () => {
    const opts = withExploration({
      events: { flip: [{ type: 'flip' }] },
      input: 1,
      invariants: { explore: { events: { flip: [{ type: 'flip', x: 1 }] }, inputs: [2] } },
    });
    expect(opts.inputs).toEqual([1, 2]);
    expect((opts.events as Record<string, unknown[]>).flip).toEqual([{ type: 'flip' }, { type: 'flip', x: 1 }]);
  });

  it('fails when the machine handles an answer but stays in the state that waits for it', () => {
    const stuck = setup({ actors: { load: fromPromise(async () => 1) } }).createMachine({
      id: 'stuck',
      initial: 'loading',
      context: { n: 0 },
      states: { loading: { invoke: { id: 'load', src: 'load', onDone: { actions: assign({ n: 1 }) } } } },
    });
    expect(() => testMachineModel(stuck, { invariants: { states: { loading: () => {} } } })).toThrow(
      /handled the answer of "load" but still waits for it/,
    );
  });

  it('a delayed step another timer precedes is skipped, counted, and its transition must be walked elsewhere', () => {
    const race = setup({}).createMachine({
      id: 'race',
      initial: 'a',
      context: { won: '' },
      states: {
        a: { after: { 100: { target: 'fast' }, 500: { target: 'slow' } } },
        fast: {},
        slow: {},
      },
    });
    const coverage = testMachineModel(race, { invariants: { states: { a: () => {}, fast: () => {}, slow: () => {} } } });
    expect(coverage.skipped.map((s) => s.reason)).toEqual(['xstate.after.100.race.a is due before xstate.after.500.race.a']);
    expect(coverage.missed.map((m) => m.targets)).toEqual([['race.slow']]);
  });
});
