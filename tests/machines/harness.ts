/**
 * Model-based tests that walk every transition of a REAL machine (no hand-kept copy).
 *
 * How it works
 * 1. Traversal (@xstate/graph `getAdjacencyMap` + `getShortestPaths`) explores the machine's pure
 *    `transition()` from its `input`. Candidate events in each state are: the events you give for a
 *    type, else a bare `{ type }` for every event the active states declare, including
 *    `xstate.done.actor.<id>`, `xstate.error.actor.<id>` (with an `error`) and `xstate.after.<delay>.<id>`.
 *    Candidates are kept only when `snapshot.can(event)` (guards see the real event).
 * 2. One path per reachable edge: the shortest path to its source state plus that edge; paths that are
 *    prefixes of longer ones are dropped.
 * 3. Each path is replayed on a real actor: `createActor(machine.provide({ actors: fakes }))`. Every
 *    named actor is replaced by a fake that never settles (a callback actor doing nothing) unless you
 *    pass your own in `actors`, so the harness itself sends the done/error events of the path. Delayed
 *    transitions run under vitest fake timers: the harness advances time by the declared delay.
 *    After every step the actor must be in the state (value, context and status) the path predicts.
 * 4. Coverage: the transitions the real actor took (from `@xstate.microstep` inspection, eventless
 *    `always` ones included) are compared with every declared transition; the check fails naming each
 *    transition (source --event [guard]--> target) no path walked.
 *
 * Usage (tests/machines/<name>.machine.test.ts):
 *
 *   import { describeModel } from './harness.js';
 *   import { agentEditorMachine } from '../../src/machines/agentEditor.machine.js';
 *
 *   describeModel('agentEditor', agentEditorMachine, {
 *     inputs: [{ agentId: undefined }, { agentId: 'a1' }],        // every input is explored
 *     events: {
 *       'field.change': [{ type: 'field.change', name: 'name', value: 'Ava' }],
 *       'xstate.done.actor.loadAgent': [{ type: 'xstate.done.actor.loadAgent', output: agentFixture }],
 *       // or a function of the snapshot: (snap) => [...]
 *     },
 *     implementations: { actions: { notify: () => {} } },       // optional, passed to machine.provide
 *     serializeState: (s) => JSON.stringify([s.value, s.context.dirty]), // optional: abstract big contexts
 *   });
 *
 * This registers one test per path ("<states and events>") and one "every transition is walked".
 * Use `testMachineModel(machine, opts)` to get `{ paths, declared, walked, missed }` yourself.
 * Keep contexts small or give `serializeState`: a context that grows without bound makes the state
 * space infinite (the traversal stops at `limit` states and says so).
 */

import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import { describe, expect, it, vi } from 'vitest';
import {
  type AnyActorLogic,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyTransitionDefinition,
  createActor,
  type EventObject,
  fromCallback,
  type InspectionEvent,
  __unsafe_getAllOwnEventDescriptors as ownEventDescriptors,
  type StateValue,
} from 'xstate';
import {
  type DeclaredTransition,
  declaredTransitions,
  formatTransition,
  transitionKey,
} from '../../scripts/lib/machine-graph.js';

/** An event the harness may send: a type plus any payload (`output` / `error` for actor events). */
export type ModelEvent = { type: string } & Record<string, unknown>;
type EventList = readonly ModelEvent[];
export type EventSource = EventList | ((snapshot: AnyMachineSnapshot) => EventList);

export interface ModelOptions {
  /** Candidate events per event type, or one function of the snapshot returning candidates. */
  events?: Record<string, EventSource> | ((snapshot: AnyMachineSnapshot) => EventList);
  /** Fakes for named actors; every other named actor becomes a fake that never settles. */
  actors?: Record<string, AnyActorLogic>;
  /** Other implementations (actions, guards, delays) handed to `machine.provide`. */
  implementations?: Record<string, unknown>;
  /** The machine input (a single one). */
  input?: unknown;
  /** Several inputs: each is explored, coverage is their union. Overrides `input`. */
  inputs?: readonly unknown[];
  /** How a snapshot is identified in the graph and compared on replay (default: value + context). */
  serializeState?: (snapshot: AnyMachineSnapshot) => string;
  /** Maximum number of states the traversal explores (default 5000). */
  limit?: number;
  /** Called after every replayed step with the real actor's snapshot (extra assertions). */
  onStep?: (snapshot: AnyMachineSnapshot, step: ModelStep) => void;
}

export interface ModelStep {
  event: EventObject;
  /** the snapshot the traversal predicts after `event` */
  state: AnyMachineSnapshot;
}

export interface ModelPath {
  input: unknown;
  inputIndex: number;
  /** first step is `xstate.init` with the initial snapshot */
  steps: ModelStep[];
  description: string;
}

export interface ModelCoverage {
  paths: ModelPath[];
  declared: DeclaredTransition[];
  walked: Set<string>;
  missed: DeclaredTransition[];
}

/** Stable JSON for snapshots and events: actor refs by id, errors by message, no functions. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Error) return { error: v.message };
    if (v instanceof Map) return { map: [...v.entries()] };
    if (v instanceof Set) return { set: [...v.values()] };
    if (typeof v === 'function') return undefined;
    // an Idempotency-Key of a user action (src/api/contract/idempotency.ts) is random: compare what it is for
    if (v && typeof v === 'object' && 'key' in v && 'fingerprint' in v)
      return { actionKey: (v as { fingerprint: string }).fingerprint };
    if (v && typeof v === 'object' && 'sessionId' in v && 'send' in v) return `actor:${(v as unknown as { id: string }).id}`;
    return v;
  });
}

const defaultSerialize = (s: AnyMachineSnapshot) => stableStringify({ value: s.value, context: s.context });

export function stateLabel(value: StateValue): string {
  if (typeof value === 'string') return value;
  const parts = Object.entries(value).map(([k, v]) => {
    const inner = stateLabel(v as StateValue);
    return typeof v === 'string' || Object.keys(v ?? {}).length <= 1 ? `${k}.${inner}` : `${k}.(${inner})`;
  });
  return parts.length === 1 ? (parts[0] as string) : `{${parts.join(', ')}}`;
}

const matchesDescriptor = (type: string, descriptor: string) =>
  descriptor === type || descriptor === '*' || (descriptor.endsWith('.*') && type.startsWith(descriptor.slice(0, -1)));

function safeCan(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  try {
    return snapshot.can(event);
  } catch {
    return false;
  }
}

/** A fake that never finishes: the harness sends the done/error events of a path itself. */
const neverSettles = () => fromCallback(() => () => {});

/** The machine with every named actor replaced by a fake (or the test's own). */
export function provideFakes(machine: AnyStateMachine, opts: ModelOptions): AnyStateMachine {
  const actors: Record<string, AnyActorLogic> = {};
  for (const name of Object.keys(machine.implementations.actors ?? {})) actors[name] = neverSettles();
  Object.assign(actors, opts.actors);
  return machine.provide({ ...(opts.implementations ?? {}), actors } as Parameters<AnyStateMachine['provide']>[0]);
}

function candidateEvents(opts: ModelOptions) {
  return (snapshot: AnyMachineSnapshot): EventObject[] => {
    if (snapshot.status !== 'active') return [];
    const descriptors = ownEventDescriptors(snapshot) as string[];
    const given: EventObject[] = [];
    const givenTypes = new Set<string>();
    if (typeof opts.events === 'function') {
      for (const e of opts.events(snapshot)) {
        given.push(e);
        givenTypes.add(e.type);
      }
    } else {
      for (const [type, source] of Object.entries(opts.events ?? {})) {
        givenTypes.add(type);
        if (!descriptors.some((d) => matchesDescriptor(type, d))) continue;
        given.push(...(typeof source === 'function' ? source(snapshot) : source));
      }
    }
    const defaults: EventObject[] = [];
    for (const d of descriptors) {
      if (d.includes('*') || d.startsWith('xstate.done.state.') || givenTypes.has(d)) continue;
      defaults.push(
        d.startsWith('xstate.error.actor.') ? ({ type: d, error: new Error('fake actor failure') } as EventObject) : { type: d },
      );
    }
    const unique = new Map<string, EventObject>();
    for (const e of [...given, ...defaults]) unique.set(stableStringify(e), e);
    return [...unique.values()].filter((e) => safeCan(snapshot, e));
  };
}

function describePath(steps: ModelStep[], inputIndex: number, multipleInputs: boolean): string {
  const [first, ...rest] = steps;
  let text = first ? stateLabel(first.state.value) : '';
  for (const s of rest) text += ` -${s.event.type}-> ${stateLabel(s.state.value)}`;
  return multipleInputs ? `[input ${inputIndex + 1}] ${text}` : text;
}

/** One path per reachable edge of the machine's graph, for every input. */
export function getModelPaths(machine: AnyStateMachine, opts: ModelOptions = {}): ModelPath[] {
  const logic = provideFakes(machine, opts);
  const serialize = opts.serializeState ?? defaultSerialize;
  const inputs = opts.inputs ?? [opts.input];
  const events = candidateEvents(opts);
  const out: ModelPath[] = [];
  inputs.forEach((input, inputIndex) => {
    const traversal = {
      input,
      events,
      serializeState: (s: AnyMachineSnapshot) => serialize(s),
      serializeEvent: (e: EventObject) => stableStringify(e),
      limit: opts.limit ?? 5000,
    };
    let adjacency: ReturnType<typeof getAdjacencyMap<AnyMachineSnapshot, EventObject, unknown>>;
    try {
      // biome-ignore lint/suspicious/noExplicitAny: @xstate/graph's option types are per-machine generics
      adjacency = getAdjacencyMap(logic, traversal as any);
    } catch (e) {
      if (!/limit exceeded/i.test(String(e))) throw e;
      throw new Error(
        `The state space of "${machine.id}" has more than ${traversal.limit} states (input ${inputIndex + 1}): ` +
          'a context value grows without bound. Give `serializeState` that abstracts it, or raise `limit`.',
      );
    }
    // biome-ignore lint/suspicious/noExplicitAny: see above
    const shortest = getShortestPaths(logic, traversal as any);
    const toState = new Map<string, ModelStep[]>();
    for (const p of shortest) toState.set(serialize(p.state as AnyMachineSnapshot), p.steps as ModelStep[]);
    const edgePaths: ModelStep[][] = [];
    for (const [serial, { transitions }] of Object.entries(adjacency)) {
      const head = toState.get(serial);
      if (!head) continue;
      for (const { event, state } of Object.values(transitions) as { event: EventObject; state: AnyMachineSnapshot }[])
        edgePaths.push([...head, { event, state }]);
    }
    if (edgePaths.length === 0 && shortest[0]) edgePaths.push(shortest[0].steps as ModelStep[]);
    // drop paths whose events are a prefix of a longer path's
    const key = (steps: ModelStep[]) => steps.map((s) => stableStringify(s.event));
    edgePaths.sort((a, b) => b.length - a.length);
    const kept: { steps: ModelStep[]; events: string[] }[] = [];
    for (const steps of edgePaths) {
      const evs = key(steps);
      if (kept.some((k) => evs.every((e, i) => k.events[i] === e))) continue;
      kept.push({ steps, events: evs });
    }
    const multiple = inputs.length > 1;
    const paths = kept.map(({ steps }) => ({
      input,
      inputIndex,
      steps,
      description: describePath(steps, inputIndex, multiple),
    }));
    paths.sort((a, b) => a.steps.length - b.steps.length || a.description.localeCompare(b.description));
    out.push(...paths);
  });
  return out;
}

/** The declared delay (ms) of the `after` transition an `xstate.after.*` event stands for. */
function delayOf(
  snapshot: AnyMachineSnapshot,
  machine: AnyStateMachine,
  type: string,
  lastEvent: EventObject,
): number | undefined {
  for (const node of snapshot._nodes) {
    const t = (node.after as (AnyTransitionDefinition & { delay: unknown })[]).find((a) => a.eventType === type);
    if (!t) continue;
    let delay: unknown = t.delay;
    if (typeof delay === 'string') delay = (machine.implementations.delays as Record<string, unknown>)[delay];
    if (typeof delay === 'function') delay = delay({ context: snapshot.context, event: lastEvent }, undefined);
    return typeof delay === 'number' ? delay : undefined;
  }
  return undefined;
}

/**
 * Replays one path on a real actor (fake actors, fake timers). Throws when a step does not land in
 * the predicted state. Returns the keys of the declared transitions the actor took.
 */
export function replayPath(machine: AnyStateMachine, path: ModelPath, opts: ModelOptions = {}): Set<string> {
  const provided = provideFakes(machine, opts);
  const serialize = opts.serializeState ?? defaultSerialize;
  const walked = new Set<string>();
  const errors: unknown[] = [];
  vi.useFakeTimers();
  const actor = createActor(provided, {
    input: path.input,
    inspect: (ev: InspectionEvent) => {
      if (ev.type !== '@xstate.microstep') return;
      for (const t of (ev as { _transitions?: AnyTransitionDefinition[] })._transitions ?? []) {
        if ((t.source as { machine?: unknown }).machine === provided) walked.add(transitionKey(t));
      }
    },
  });
  actor.subscribe({ error: (e) => errors.push(e) });
  try {
    actor.start();
    let lastEvent: EventObject = { type: 'xstate.init' };
    path.steps.forEach((step, i) => {
      if (i > 0) {
        if (step.event.type.startsWith('xstate.after.')) {
          const ms = delayOf(actor.getSnapshot(), provided, step.event.type, lastEvent);
          if (ms === undefined) throw new Error(`Cannot resolve the delay of ${step.event.type}`);
          vi.advanceTimersByTime(ms);
        } else {
          actor.send(step.event);
        }
        lastEvent = step.event;
      }
      const actual = actor.getSnapshot() as AnyMachineSnapshot;
      const where = `step ${i} (${step.event.type}) of: ${path.description}`;
      if (errors.length) throw new Error(`The actor failed at ${where}: ${String(errors[0])}`);
      expect(actual.status, where).toBe(step.state.status);
      expect(serialize(actual), where).toBe(serialize(step.state));
      opts.onStep?.(actual, step);
    });
  } finally {
    actor.stop();
    vi.useRealTimers();
  }
  return walked;
}

/** Explores the machine, replays every path and reports which declared transitions were walked. */
export function testMachineModel(machine: AnyStateMachine, opts: ModelOptions = {}): ModelCoverage {
  const paths = getModelPaths(machine, opts);
  const walked = new Set<string>();
  for (const path of paths) for (const key of replayPath(machine, path, opts)) walked.add(key);
  const declared = declaredTransitions(machine);
  return { paths, declared, walked, missed: declared.filter((d) => !walked.has(d.key)) };
}

/** Throws naming every declared transition that no path walked. */
export function assertEveryTransitionWalked(machineId: string, coverage: ModelCoverage): void {
  if (coverage.missed.length === 0) return;
  const lines = coverage.missed.map((t) => `  - ${formatTransition(t)}`);
  throw new Error(
    `${coverage.missed.length} of ${coverage.declared.length} declared transitions of "${machineId}" were never walked:\n` +
      `${lines.join('\n')}\nGive the harness events or inputs that enable them, or remove them from the machine.`,
  );
}

/** Registers one vitest test per path plus one that fails naming any transition no path walked. */
export function describeModel(name: string, machine: AnyStateMachine, opts: ModelOptions = {}): void {
  describe(`${name} machine model`, () => {
    const paths = getModelPaths(machine, opts);
    it('has at least one path', () => {
      expect(paths.length).toBeGreaterThan(0);
    });
    for (const path of paths) {
      it(`walks ${path.description}`, () => {
        replayPath(machine, path, opts);
      });
    }
    it('every transition is walked', () => {
      assertEveryTransitionWalked(machine.id, testMachineModel(machine, opts));
    });
  });
}
