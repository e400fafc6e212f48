import { describe, expect, it } from 'vitest';
import { allStateNodes, declaredTransitions, formatTransition } from '../../scripts/lib/machine-graph.js';
import { assignAgentMachine } from '../../src/machines/assignAgent.machine.js';
import { phoneNumberDeleteMachine } from '../../src/machines/phoneNumberDelete.machine.js';
import { phoneNumberUpdateMachine } from '../../src/machines/phoneNumberUpdate.machine.js';
import { phoneRequestMachine } from '../../src/machines/phoneRequest.machine.js';

/** The Phone Numbers screen's machines describe every state and transition (the statecharts show them). */
describe.each([
  ['assignAgent', assignAgentMachine],
  ['phoneNumberUpdate', phoneNumberUpdateMachine],
  ['phoneNumberDelete', phoneNumberDeleteMachine],
  ['phoneRequest', phoneRequestMachine],
] as const)('%s', (_name, machine) => {
  it('every state has a description', () => {
    expect(
      allStateNodes(machine)
        .filter((n) => !n.description)
        .map((n) => n.id),
    ).toEqual([]);
  });
  it('every transition has a description', () => {
    const missing = declaredTransitions(machine).filter((t) => !t.description);
    expect(missing.map(formatTransition)).toEqual([]);
  });
});
