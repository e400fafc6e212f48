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
 * space infinite (the traversal stops after `limit` steps and says so).
 */

import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import { describe, expect, it, vi } from 'vitest';
import {
  type AnyActorLogic,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  createActor,
  type EventObject,
  fromCallback,
  type InspectionEvent,
  __unsafe_getAllOwnEventDescriptors as ownEventDescriptors,
  type StateValue,
} from 'xstate';
import {
  allStateNodes,
  type DeclaredTransition,
  declaredTransitions,
  formatTransition,
  transitionKey,
} from '../../scripts/lib/machine-graph.js';
import { invariantTables } from './invariants/index.js';
import type { ActorRequest, ExecutedAction, Invariant, InvariantTable, World } from './invariants/types.js';

/** An event the harness may send: a type plus any payload (`output` / `error` for actor events). */
export type ModelEvent = { type: string } & Record<string, unknown>;
type EventList = readonly ModelEvent[];
export type EventSource = EventList | ((snapshot: AnyMachineSnapshot) => EventList);

export interface ModelOptions {
  /** Candidate events per event type, or one function of the snapshot returning candidates. */
  events?: Record<string, EventSource> | ((snapshot: AnyMachineSnapshot) => EventList);
  /**
   * Which declared event types get a bare default (`{ type }`) when no candidate of that type is given:
   * `all` (the default) or `timers` (only `xstate.after.*`: the machine's own raised events and the
   * events whose payload matters come from `events` alone).
   */
  defaults?: 'all' | 'timers';
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
  /**
   * Maximum number of steps (edges, repeats included) the traversal takes (default 2500; session takes 986,
   * assignAgent 2021 and gives its own): a mutant whose state space explodes then fails at once instead of
   * running into its mutation timeout.
   */
  limit?: number;
  /** Called after every replayed step with the real actor's snapshot (extra assertions). */
  onStep?: (snapshot: AnyMachineSnapshot, step: ModelStep) => void;
  /** State invariants checked after every step (describeModel reads tests/machines/invariants/<name>.ts). */
  invariants?: InvariantTable;
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
  /** paths ended early at a delayed step another timer precedes */
  skipped: SkippedPath[];
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

/** The events the test (and the table's `explore`) give for a snapshot, accepted or not. */
function givenEvents(opts: ModelOptions, snapshot: AnyMachineSnapshot): EventObject[] {
  if (typeof opts.events === 'function') return [...opts.events(snapshot)];
  const out: EventObject[] = [];
  for (const source of Object.values(opts.events ?? {})) out.push(...(typeof source === 'function' ? source(snapshot) : source));
  return out;
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
      if (opts.defaults === 'timers' && !d.startsWith('xstate.after.')) continue;
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
      limit: opts.limit ?? 2500,
    };
    let adjacency: ReturnType<typeof getAdjacencyMap<AnyMachineSnapshot, EventObject, unknown>>;
    try {
      // biome-ignore lint/suspicious/noExplicitAny: @xstate/graph's option types are per-machine generics
      adjacency = getAdjacencyMap(logic, traversal as any);
    } catch (e) {
      if (!/limit exceeded/i.test(String(e))) throw e;
      throw new Error(
        `The state space of "${machine.id}" has more than ${traversal.limit} steps (input ${inputIndex + 1}): ` +
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
    // drop paths that only repeat another: the same states and event types through the same snapshots,
    // ending with the same event (they differ only in an earlier payload the machine did not keep)
    const seen = new Set<string>();
    const paths: ModelPath[] = [];
    for (const { steps } of kept) {
      const description = describePath(steps, inputIndex, multiple);
      const last = steps.at(-1)?.event;
      const identity = `${description}\n${steps.map((s) => serialize(s.state)).join('\n')}\n${stableStringify(last)}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
      paths.push({ input, inputIndex, steps, description });
    }
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

interface ScheduledEvent {
  event: EventObject;
  delay: number;
  startedAt: number;
}

/** The timers the actor system has pending (xstate keeps them in its system snapshot). */
function scheduledEvents(actor: AnyActorRef): ScheduledEvent[] {
  const snap = actor.system.getSnapshot() as { _scheduledEvents?: Record<string, ScheduledEvent> };
  return Object.values(snap._scheduledEvents ?? {});
}

/** Why a path was not replayed to its end (a delayed event that cannot come first on a real clock). */
export interface SkippedPath {
  path: ModelPath;
  step: number;
  reason: string;
}

export interface ReplayResult {
  walked: Set<string>;
  /** set when the path was skipped at a delayed step; the steps before it were checked */
  skipped?: SkippedPath;
}

function invariantFailure(what: string, where: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const out = new Error(`Invariant "${what}" broken at ${where}\n${message}`);
  return out;
}

/** Runs every invariant of the table that applies to the snapshot. */
export function checkInvariants(table: InvariantTable, snapshot: AnyMachineSnapshot, world: World, where: string): void {
  const run = (what: string, check: Invariant) => {
    try {
      check(snapshot, world);
    } catch (e) {
      throw invariantFailure(what, where, e);
    }
  };
  if (table.always) run('always', table.always);
  for (const [path, check] of Object.entries(table.states ?? {})) {
    if (snapshot.matches(pathToValue(path))) run(`state ${path}`, check);
  }
  for (const [tag, check] of Object.entries(table.tags ?? {})) {
    if (snapshot.hasTag(tag)) run(`tag ${tag}`, check);
  }
}

/** `a.b.c` -> `{ a: { b: 'c' } }` */
function pathToValue(path: string): StateValue {
  const parts = path.split('.');
  let value: StateValue = parts.pop() as string;
  while (parts.length) value = { [parts.pop() as string]: value };
  return value;
}

/** The invariant table for a model: the one given, else the registered one (tests/machines/invariants). */
export function tableFor(name: string, opts: ModelOptions): InvariantTable {
  const table = opts.invariants ?? invariantTables[name];
  if (!table) throw new Error(`No invariant table for machine "${name}": add tests/machines/invariants/${name}.ts`);
  return table;
}

/**
 * Replays one path on a real actor (fake actors, fake timers). After every step the actor must be in
 * the state the path predicts and every invariant of `opts.invariants` that applies must hold. A
 * delayed step whose timer is not the next one due (another timer would fire first on a real clock)
 * ends the replay: the path is reported as skipped. Returns the declared transitions the actor took.
 */
export function replayPath(machine: AnyStateMachine, path: ModelPath, opts: ModelOptions = {}): ReplayResult {
  const provided = provideFakes(machine, opts);
  const serialize = opts.serializeState ?? defaultSerialize;
  const walked = new Set<string>();
  const errors: unknown[] = [];
  const started: ActorRequest[] = [];
  const actions: ExecutedAction[] = [];
  let stepIndex = 0;
  vi.useFakeTimers();
  const actor = createActor(provided, {
    input: path.input,
    inspect: (ev: InspectionEvent) => {
      if (ev.type === '@xstate.actor') {
        // children are created while the root computes its initial state (before createActor returns)
        const ref = ev.actorRef as AnyActorRef & { src: unknown; options: { input?: unknown }; _parent?: { _parent?: unknown } };
        if (ref._parent && !ref._parent._parent)
          started.push({
            id: ref.id,
            src: typeof ref.src === 'string' ? ref.src : ref.id,
            input: ref.options.input,
            step: stepIndex,
          });
        return;
      }
      if (ev.type === '@xstate.action') {
        if ((ev.actorRef as { _parent?: unknown })._parent) return;
        const { type, params } = (ev as { action: { type: string; params: unknown } }).action;
        actions.push({ type, params, step: stepIndex });
        return;
      }
      if (ev.type !== '@xstate.microstep') return;
      for (const t of (ev as { _transitions?: AnyTransitionDefinition[] })._transitions ?? []) {
        if ((t.source as { machine?: unknown }).machine === provided) walked.add(transitionKey(t));
      }
    },
  });
  actor.subscribe({ error: (e) => errors.push(e) });
  const emitted: { event: EventObject; step: number }[] = [];
  actor.on('*', (event: EventObject) => {
    emitted.push({ event, step: stepIndex });
  });
  const table = opts.invariants;
  let skipped: SkippedPath | undefined;
  try {
    actor.start();
    let lastEvent: EventObject = { type: 'xstate.init' };
    let previous: AnyMachineSnapshot | undefined;
    for (const [i, step] of path.steps.entries()) {
      stepIndex = i;
      if (i > 0) {
        if (step.event.type.startsWith('xstate.after.')) {
          const timers = scheduledEvents(actor);
          const mine = timers.find((t) => t.event.type === step.event.type);
          const ms = mine
            ? mine.startedAt + mine.delay - Date.now()
            : delayOf(actor.getSnapshot(), provided, step.event.type, lastEvent);
          if (ms === undefined) throw new Error(`Cannot resolve the delay of ${step.event.type}`);
          const due = Date.now() + ms;
          const first = timers.find((t) => t !== mine && t.startedAt + t.delay < due);
          vi.advanceTimersByTime(ms);
          // another timer was due first: fine when it changed nothing (a guard said no), else the path
          // cannot happen on a real clock
          if (first && serialize(actor.getSnapshot() as AnyMachineSnapshot) !== serialize(step.state)) {
            skipped = { path, step: i, reason: `${first.event.type} is due before ${step.event.type}` };
            break;
          }
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
      // an actor that answered is finished: a machine still running that same invocation would wait forever
      const answered = /^xstate\.(done|error)\.actor\.(.+)$/.exec(step.event.type)?.[2];
      if (i > 0 && answered) {
        const child = (actual.children as Record<string, AnyActorRef | undefined>)[answered];
        const restarted = started.some((r) => r.id === answered && r.step === i);
        if (child && child.getSnapshot().status === 'active' && !restarted)
          throw new Error(
            `At ${where}: the machine handled the answer of "${answered}" but still waits for it (the invoking state was not left)`,
          );
      }
      if (table) {
        const now = i;
        const world: World = {
          step: i,
          event: i === 0 ? { type: 'xstate.init' } : step.event,
          previous,
          pending: (src?: string) =>
            Object.values(actual.children as Record<string, AnyActorRef | undefined>)
              .filter((c): c is AnyActorRef => c !== undefined && c.getSnapshot().status === 'active')
              .map((c) => started.findLast((s) => s.id === c.id) ?? { id: c.id, src: c.id, input: undefined, step: -1 })
              .filter((r) => src === undefined || r.src === src),
          started: [...started],
          startedNow: started.filter((s) => s.step === now),
          emittedNow: emitted.filter((e) => e.step === now).map((e) => e.event),
          events: path.steps.slice(0, i + 1).map((s, k) => (k === 0 ? { type: 'xstate.init' } : s.event)),
          actions: [...actions],
          actionsNow: actions.filter((a) => a.step === now),
        };
        checkInvariants(table, actual, world, where);
        // the refusals the table judges: a refused event is a step that changed nothing
        if (table.refused?.length && actual.status === 'active') {
          const given = givenEvents(opts, actual);
          // a type the test gives no candidate for is probed bare, as the walk would send it
          for (const type of table.refused) if (!given.some((e) => e.type === type)) given.push({ type });
          for (const e of given) {
            if (!table.refused.includes(e.type) || safeCan(actual, e)) continue;
            const refusedWorld: World = {
              ...world,
              event: e,
              previous: actual,
              startedNow: [],
              actionsNow: [],
              emittedNow: [],
              events: [...world.events, e],
            };
            checkInvariants(table, actual, refusedWorld, `${where}, refusing ${stableStringify(e)}`);
          }
        }
      }
      opts.onStep?.(actual, step);
      previous = actual;
    }
  } finally {
    actor.stop();
    vi.useRealTimers();
  }
  return skipped ? { walked, skipped } : { walked };
}

/** Explores the machine, replays every path and reports which declared transitions were walked. */
export function testMachineModel(machine: AnyStateMachine, opts: ModelOptions = {}): ModelCoverage {
  const paths = getModelPaths(machine, opts);
  const walked = new Set<string>();
  const skipped: SkippedPath[] = [];
  for (const path of paths) {
    const result = replayPath(machine, path, opts);
    for (const key of result.walked) walked.add(key);
    if (result.skipped) skipped.push(result.skipped);
  }
  const declared = declaredTransitions(machine);
  return { paths, declared, walked, missed: declared.filter((d) => !walked.has(d.key)), skipped };
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

/**
 * The atomic states of the machine that no invariant covers: one is covered by an entry in
 * `states` for itself or an ancestor, or in `tags` for a tag of itself or an ancestor.
 */
export function statesWithoutInvariant(machine: AnyStateMachine, table: InvariantTable): string[] {
  const stateKeys = new Set(Object.keys(table.states ?? {}));
  const tagKeys = new Set(Object.keys(table.tags ?? {}));
  const out: string[] = [];
  for (const node of allStateNodes(machine)) {
    if (node.type !== 'atomic' && node.type !== 'final' && node.type !== 'history') continue;
    if (node.type === 'history') continue;
    let covered = false;
    for (let n: AnyStateNode | undefined = node; n && n !== machine.root; n = n.parent) {
      if (stateKeys.has(n.path.join('.')) || [...n.tags].some((t) => tagKeys.has(t))) covered = true;
    }
    if (!covered) out.push(node.path.join('.'));
  }
  return out;
}

/** Keys of the table that name no state or tag of the machine (a typo would silently check nothing). */
export function unknownInvariantKeys(machine: AnyStateMachine, table: InvariantTable): string[] {
  const paths = new Set(allStateNodes(machine).map((n) => n.path.join('.')));
  const tags = new Set(allStateNodes(machine).flatMap((n) => [...n.tags]));
  return [
    ...Object.keys(table.states ?? {}).filter((k) => !paths.has(k)),
    ...Object.keys(table.tags ?? {})
      .filter((k) => !tags.has(k))
      .map((k) => `tag ${k}`),
  ];
}

/**
 * Registers the model tests of a machine. Test names do not depend on the machine's graph (a mutant
 * that changes the graph keeps the same tests, which mutation testing filters by name):
 * - `[input k] every path keeps the invariants`: replays every path from input k; a failure names the
 *   path, the step and the invariant;
 * - `every transition is walked` (coverage);
 * - `every state has an invariant` (and no invariant names a state the machine lacks).
 */
/** The model's options with the table's `explore` events and inputs added. */
export function withExploration(opts: ModelOptions): ModelOptions {
  const more = opts.invariants?.explore;
  if (!more) return opts;
  const out: ModelOptions = { ...opts };
  if (more.inputs?.length) out.inputs = [...(opts.inputs ?? [opts.input]), ...more.inputs];
  if (more.events) {
    if (typeof opts.events === 'function') {
      const own = opts.events;
      const extra = Object.values(more.events).flat();
      out.events = (snapshot) => [...own(snapshot), ...extra];
    } else {
      const merged: Record<string, EventSource> = { ...(opts.events ?? {}) };
      for (const [type, list] of Object.entries(more.events)) {
        const own = merged[type];
        merged[type] =
          own === undefined
            ? list
            : typeof own === 'function'
              ? (snapshot: AnyMachineSnapshot) => [...own(snapshot), ...list]
              : [...own, ...list];
      }
      out.events = merged;
    }
  }
  return out;
}

/** A walk replays hundreds of paths in one test: give it time on a busy machine (a bound, not a timing assertion). */
const WALK_TIMEOUT = 120_000;

export function describeModel(name: string, machine: AnyStateMachine, options: ModelOptions = {}): void {
  describe(`${name} machine model`, () => {
    const opts: ModelOptions = withExploration({ ...options, invariants: tableFor(name, options) });
    const inputs = opts.inputs ?? [opts.input];
    let paths: ModelPath[] | undefined;
    const allPaths = () => {
      paths ??= getModelPaths(machine, opts);
      return paths;
    };
    const results = new Map<number, { walked: Set<string>; skipped: SkippedPath[] }>();
    const replayInput = (inputIndex: number) => {
      const cached = results.get(inputIndex);
      if (cached) return cached;
      const walked = new Set<string>();
      const skipped: SkippedPath[] = [];
      for (const path of allPaths().filter((p) => p.inputIndex === inputIndex)) {
        const r = replayPath(machine, path, opts);
        for (const k of r.walked) walked.add(k);
        if (r.skipped) skipped.push(r.skipped);
      }
      const out = { walked, skipped };
      results.set(inputIndex, out);
      return out;
    };
    inputs.forEach((_input, inputIndex) => {
      const label = inputs.length > 1 ? `[input ${inputIndex + 1}] ` : '';
      it(
        `${label}every path keeps the invariants`,
        (ctx) => {
          const mine = allPaths().filter((p) => p.inputIndex === inputIndex);
          expect(mine.length, 'the traversal found no path').toBeGreaterThan(0);
          const { skipped } = replayInput(inputIndex);
          // a skip is explicit: it is counted here and its transition must still be walked by another path
          if (skipped.length)
            ctx.annotate(
              `${skipped.length} of ${mine.length} paths skipped at a delayed step another timer precedes: ${skipped
                .map((s) => `${s.path.description} (step ${s.step}: ${s.reason})`)
                .join('; ')}`,
            );
          expect(skipped.length, 'every path was skipped').toBeLessThan(mine.length);
        },
        WALK_TIMEOUT,
      );
    });
    it(
      'every transition is walked',
      () => {
        const walked = new Set<string>();
        inputs.forEach((_i, k) => {
          for (const key of replayInput(k).walked) walked.add(key);
        });
        const declared = declaredTransitions(machine);
        assertEveryTransitionWalked(name, {
          paths: allPaths(),
          declared,
          walked,
          missed: declared.filter((d) => !walked.has(d.key)),
          skipped: [],
        });
      },
      WALK_TIMEOUT,
    );
    it('every state has an invariant', () => {
      const table = opts.invariants as InvariantTable;
      expect(unknownInvariantKeys(machine, table), 'invariant keys naming no state or tag').toEqual([]);
      expect(statesWithoutInvariant(machine, table), 'states without an invariant').toEqual([]);
    });
  });
}
