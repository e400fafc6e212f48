/** Small readers shared by the invariant tables. */
import { expect } from 'vitest';
import type { ExecutedAction, Snapshot, World } from './types.js';

/** The named (non built-in) actions of a list, by type. */
export const named = (actions: ExecutedAction[]) => actions.filter((a) => !a.type.startsWith('xstate.'));
/** Types of the named actions this step executed. */
export const effectsNow = (world: World) => named(world.actionsNow).map((a) => a.type);
/** The params of this step's action `type` (undefined when it did not run). */
export const paramsNow = (world: World, type: string) => world.actionsNow.find((a) => a.type === type)?.params;
/** Whether the previous snapshot was in `state` (dotted path). */
export const cameFrom = (world: World, state: string) => Boolean(world.previous?.matches(stateValueOf(state)));
export const eventIs = (world: World, type: string) => world.event.type === type;
// biome-ignore lint/suspicious/noExplicitAny: events carry machine-specific payloads
export const ev = (world: World) => world.event as any;

function stateValueOf(path: string) {
  const parts = path.split('.');
  // biome-ignore lint/suspicious/noExplicitAny: a state value
  let value: any = parts.pop();
  while (parts.length) value = { [parts.pop() as string]: value };
  return value;
}

/** Exactly `n` requests of `src` in flight. */
export function expectPending(world: World, src: string, n: number) {
  expect(world.pending(src).length, `${src} requests in flight`).toBe(n);
}
/** No actor of any kind in flight. */
export function expectNothingPending(world: World) {
  expect(
    world.pending().map((r) => r.src),
    'requests in flight',
  ).toEqual([]);
}
/** The only request of `src` in flight, asserted single. */
export function onlyRequest(world: World, src: string) {
  const all = world.pending(src);
  expect(all.length, `${src} requests in flight`).toBe(1);
  // biome-ignore lint/suspicious/noExplicitAny: the input of one actor
  return all[0]?.input as any;
}
/** The snapshot did not change its context in this step. */
export function expectContextKept(snapshot: Snapshot, world: World, keys?: string[]) {
  if (!world.previous) return;
  if (!keys) expect(snapshot.context).toEqual(world.previous.context);
  else for (const k of keys) expect(snapshot.context[k], k).toEqual(world.previous.context[k]);
}
