/**
 * Every machine of src/machines is walked by a model test (describeModel) and has an invariant table
 * (tests/machines/invariants/<machine>.ts) that gives every one of its states at least one invariant.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { statesWithoutInvariant, unknownInvariantKeys } from './harness.js';
import { invariantTables } from './invariants/index.js';

const root = path.resolve(import.meta.dirname, '../..');
const machineFiles = fs.readdirSync(path.join(root, 'src/machines')).filter((f) => f.endsWith('.machine.ts'));
const testSources = fs
  .readdirSync(path.join(root, 'tests/machines'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => fs.readFileSync(path.join(root, 'tests/machines', f), 'utf8'))
  .join('\n');

describe('every machine has a model walk and state invariants', () => {
  it('one table per machine, none for a machine that is gone', () => {
    expect(Object.keys(invariantTables).sort()).toEqual(machineFiles.map((f) => f.replace(/\.machine\.ts$/, '')).sort());
  });
  for (const file of machineFiles) {
    const name = file.replace(/\.machine\.ts$/, '');
    it(name, async () => {
      const mod = (await import(`../../src/machines/${file.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
      const machine = Object.values(mod).find(
        (v): v is AnyStateMachine => typeof v === 'object' && v !== null && 'root' in v && (v as AnyStateMachine).id === name,
      );
      expect(machine, `${file} exports a machine with id "${name}"`).toBeDefined();
      expect(testSources, `a test calls describeModel('${name}', ...)`).toContain(`describeModel('${name}'`);
      const table = invariantTables[name];
      expect(table, `tests/machines/invariants/${name}.ts is registered in invariants/index.ts`).toBeDefined();
      if (!machine || !table) return;
      expect(statesWithoutInvariant(machine, table)).toEqual([]);
      expect(unknownInvariantKeys(machine, table)).toEqual([]);
    });
  }
});
