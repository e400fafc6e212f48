/**
 * Reads the structure of an XState v5 machine: its state nodes and every declared transition
 * (`on`, `always`, `after`, invoke `onDone`/`onError`/`onSnapshot`, state `onDone`), with stable
 * keys and human labels. Shared by the statechart generator (scripts/statecharts.ts) and the
 * model-based test harness (tests/machines/harness.ts) so both speak of transitions the same way.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';

export interface DeclaredTransition {
  /** stable identity: `<source id>#<event descriptor>#<index among that node's transitions for it>` */
  key: string;
  /** id of the state node that declares it */
  source: string;
  /** event descriptor; '' for eventless (`always`) transitions */
  event: string;
  /** readable event: `sidebar.toggle`, `always`, `after 5000ms`, `done(login)`, `error(login)` */
  eventLabel: string;
  guard?: string;
  /** ids of the target state nodes; empty for a targetless (actions only) transition */
  targets: string[];
  actions: string[];
  reenter: boolean;
  description?: string;
}

/** The root and every descendant state node, in document order. */
export function allStateNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const walk = (node: AnyStateNode) => {
    out.push(node);
    for (const child of Object.values(node.states) as AnyStateNode[]) walk(child);
  };
  walk(machine.root);
  return out;
}

/** Stable key of a transition definition (works across `machine.provide()`, which rebuilds nodes). */
export function transitionKey(t: AnyTransitionDefinition): string {
  const source = t.source as AnyStateNode;
  const list: readonly AnyTransitionDefinition[] =
    t.eventType === '' ? (source.always ?? []) : (source.transitions.get(t.eventType) ?? []);
  let index = list.indexOf(t);
  if (index < 0) {
    const targets = (t.target ?? []).map((n) => n.id).join(',');
    index = list.findIndex((c) => (c.target ?? []).map((n) => n.id).join(',') === targets && c.guard === t.guard);
  }
  return `${source.id}#${t.eventType}#${index}`;
}

/** Whether the transition does anything (xstate ignores `on: { x: undefined }`-style forbidden transitions). */
const isEffective = (t: AnyTransitionDefinition) => Boolean(t.target?.length || t.actions.length || t.reenter);

/** Every declared transition of the machine, in document order. */
export function declaredTransitions(machine: AnyStateMachine): DeclaredTransition[] {
  const out: DeclaredTransition[] = [];
  for (const node of allStateNodes(machine)) {
    const defs: AnyTransitionDefinition[] = [...(node.always ?? []), ...[...node.transitions.values()].flat()];
    for (const t of defs) {
      if (!isEffective(t)) continue;
      const guard = t.guard === undefined ? undefined : guardLabel(t.guard);
      out.push({
        key: transitionKey(t),
        source: node.id,
        event: t.eventType,
        eventLabel: eventLabel(t),
        ...(guard ? { guard } : {}),
        targets: (t.target ?? []).map((n) => n.id),
        actions: t.actions.map(actionLabel),
        reenter: t.reenter,
        ...(t.description ? { description: t.description } : {}),
      });
    }
  }
  return out;
}

/** `sidebar.open --sidebar.toggle [isDirty]--> sidebar.collapsed` */
export function formatTransition(t: DeclaredTransition): string {
  const target = t.targets.length ? t.targets.join(', ') : '(stays, actions only)';
  return `${t.source} --${t.eventLabel}${t.guard ? ` [${t.guard}]` : ''}--> ${target}`;
}

export function eventLabel(t: Pick<AnyTransitionDefinition, 'eventType'> & { delay?: unknown }): string {
  const type = t.eventType;
  if (type === '') return 'always';
  if (type.startsWith('xstate.after.')) {
    const delay = t.delay ?? type.slice('xstate.after.'.length).split('.')[0];
    return typeof delay === 'number' || /^\d+$/.test(String(delay)) ? `after ${delay}ms` : `after ${String(delay)}`;
  }
  for (const [prefix, label] of [
    ['xstate.done.actor.', 'done'],
    ['xstate.error.actor.', 'error'],
    ['xstate.snapshot.', 'snapshot'],
  ] as const) {
    if (type.startsWith(prefix)) return `${label}(${type.slice(prefix.length)})`;
  }
  if (type.startsWith('xstate.done.state.')) return 'done';
  return type;
}

type Labelled = { type?: unknown; name?: string; guards?: unknown[]; check?: { name?: string }; stateValue?: unknown };

export function guardLabel(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard) return String((guard as Labelled).type);
  if (typeof guard === 'function') {
    const g = guard as unknown as Labelled;
    if (Array.isArray(g.guards)) {
      const parts = g.guards.map(guardLabel);
      const op = g.check?.name ?? '';
      if (/not/i.test(op)) return `!${parts[0]}`;
      if (/and/i.test(op)) return `(${parts.join(' && ')})`;
      if (/or/i.test(op)) return `(${parts.join(' || ')})`;
    }
    if (g.stateValue !== undefined) return `in(${JSON.stringify(g.stateValue)})`;
    return g.name && g.name !== 'guard' ? g.name : 'inline guard';
  }
  return String(guard);
}

export function actionLabel(action: unknown): string {
  if (typeof action === 'string') return action;
  if (action && typeof action === 'object' && 'type' in action) return String((action as Labelled).type);
  if (typeof action === 'function') {
    const a = action as unknown as Labelled;
    if (typeof a.type === 'string') return a.type.replace(/^xstate\./, '');
    return a.name || 'inline action';
  }
  return String(action);
}
