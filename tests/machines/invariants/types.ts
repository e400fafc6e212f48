/**
 * State invariants: what must hold of a machine's context, and of what its (fake) actors were asked to
 * do, in each state. The model harness (../harness.ts) checks them after every step of every walked
 * path, on the real actor, so a machine that breaks its behaviour fails its walk even though the paths
 * were generated from that same (broken) machine.
 *
 * A table is written from the product's rules (the spec and the machine's own documentation), never
 * from the machine's code: an invariant that restates an `assign` proves nothing.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';

/** One actor the machine started (invoked or spawned), as the fake received it. */
export interface ActorRequest {
  /** the invoke/spawn id (`saveAgent`, ...) */
  id: string;
  /** the implementation name (`src`) */
  src: string;
  /** the input the machine gave it: the request it asked for */
  input: unknown;
  /** the step (0 = start) at which it was started */
  step: number;
}

/** One action the machine executed: a named effect by its name; `assign`s (named or not) as `xstate.assign`. */
export interface ExecutedAction {
  type: string;
  params: unknown;
  step: number;
}

/** What the fakes saw so far, for the step being checked. */
export interface World {
  /** index of the step (0 = the initial snapshot) */
  step: number;
  /** the event of this step (`xstate.init` at step 0) */
  event: EventObject;
  /** the snapshot before this step (undefined at step 0) */
  previous: AnyMachineSnapshot | undefined;
  /** actors started and still running now: requests in flight */
  pending: (src?: string) => ActorRequest[];
  /** every actor started since the actor started */
  started: ActorRequest[];
  /** actors started by this step's event */
  startedNow: ActorRequest[];
  /** events the machine emitted (`emit`) in this step */
  emittedNow: EventObject[];
  /** the events of the steps so far, this one last (index = step) */
  events: EventObject[];
  /** every named action executed since the actor started */
  actions: ExecutedAction[];
  /** named actions executed by this step's event */
  actionsNow: ExecutedAction[];
}

// biome-ignore lint/suspicious/noExplicitAny: invariants read the context of one machine; its type is theirs
export type Snapshot = AnyMachineSnapshot & { context: any };
/** Throws (usually through `expect`) when the invariant does not hold. */
export type Invariant = (snapshot: Snapshot, world: World) => void;

export interface InvariantTable {
  /** Invariants per state, by its dotted path from the root (`authenticated.refreshing`, `form.editing`): they hold whenever the state is active. */
  states?: Record<string, Invariant>;
  /** Invariants per tag: they hold whenever a state with the tag is active. */
  tags?: Record<string, Invariant>;
  /** Invariants that hold in every state (do not count as a state's own invariant). */
  always?: Invariant;
  /**
   * Event types whose refusal is judged too: a walk only takes the events a state accepts, so a machine
   * that lost a transition would never be asked. For these types, every candidate the state refuses is
   * checked as a step that changed nothing (same snapshot, no request, no effect).
   */
  refused?: readonly string[];
  /**
   * More to explore than the model test gives: candidate events (added to its own, per type) and
   * inputs (appended). For the cases the invariants speak of that the test's events never reach.
   */
  explore?: {
    events?: Record<string, readonly ({ type: string } & Record<string, unknown>)[]>;
    inputs?: readonly unknown[];
  };
}

export const defineInvariants = (table: InvariantTable): InvariantTable => table;
