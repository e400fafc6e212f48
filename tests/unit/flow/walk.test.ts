/**
 * The compiled machine of a sample flow walked model-based (tests/machines/harness.ts: a shortest path to
 * every transition, replayed on a real actor) under the flow's invariants (walk-model.ts): after every step
 * the machine must be in the node the flow document says the step leads to.
 */
import { describe, expect, it } from 'vitest';
import { compileFlow, currentNode } from '../../../src/flow/compile';
import { assertEveryTransitionWalked, testMachineModel } from '../../machines/harness';
import { everyKindFlow } from './compile-sample';
import { walkOptions } from './walk-model';

/** A walk replays every path in one test: time on a busy machine (a bound, not a timing assertion). */
const WALK_MS = 120_000;

const VALUES = [
  { age: 70, insurance: 'private' },
  { age: 95, insurance: 'public' },
  { age: 30, insurance: 'none' },
  { age: 30, insurance: 'public' },
  { age: 'old', insurance: 'gold' },
];

describe('the compiled machine of a sample flow, walked', () => {
  const flow = everyKindFlow();
  const machine = compileFlow(flow);
  let walked: ReturnType<typeof testMachineModel> | undefined;
  const cover = () => {
    walked ??= testMachineModel(machine, walkOptions(flow, VALUES));
    return walked;
  };

  it(
    'walks every transition of the machine, keeping the invariants at every step',
    () => {
      const coverage = cover();
      expect(coverage.paths.length).toBeGreaterThan(0);
      assertEveryTransitionWalked('flow', coverage);
    },
    WALK_MS,
  );

  it(
    'reaches every node and takes every edge of the flow',
    () => {
      const coverage = cover();
      const reached = new Set(coverage.paths.flatMap((p) => p.steps.map((s) => currentNode(s.state))));
      // a logic split is passed through in the same step (its edges below prove it was)
      const resting = flow.nodes.filter((n) => n.type !== 'logic_split').map((n) => n.id);
      expect([...reached].sort()).toEqual(resting.sort());
      // each edge's transition is described `<edge id>: <condition>`
      const taken = coverage.declared.filter((t) => coverage.walked.has(t.key)).map((t) => t.description?.split(':')[0]);
      for (const edge of flow.nodes.flatMap((n) => n.edges)) expect(taken, edge.id).toContain(edge.id);
    },
    WALK_MS,
  );
});
