import { defineConfig } from 'vitest/config';

/**
 * The unit project's machine tests, alone: what Stryker (stryker.config.mjs) runs against every mutant
 * of src/machines. Same environment as the `unit` project of vitest.config.ts.
 */
export default defineConfig({
  test: {
    name: 'unit',
    include: ['tests/machines/**/*.test.ts'],
    environment: 'node',
  },
});
