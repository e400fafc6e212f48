import { defineConfig } from 'vitest/config';

/**
 * The unit project's machine tests, alone: what Stryker (stryker.config.mjs) runs against every mutant
 * of src/machines. Same environment as the `unit` project of vitest.config.ts. Left out: the harness's
 * own tests and the check that every machine has a table (invariants.test.ts imports every machine, so
 * Stryker would rerun it, and load all 24 machines, for every mutant; it tests the tests, not a machine).
 */
export default defineConfig({
  test: {
    name: 'unit',
    include: ['tests/machines/**/*.test.ts'],
    exclude: ['tests/machines/harness.test.ts', 'tests/machines/invariants.test.ts'],
    environment: 'node',
  },
});
