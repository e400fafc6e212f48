// @ts-check
// Mutation testing of the state machines (`npm run mutation`, bench/mutation.ts; part of `npm run bench`,
// never of `npm test`). Stryker mutates src/machines and runs the unit project's machine tests
// (vitest.mutation.config.ts) against each mutant; a mutant that no test notices "survives".
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  plugins: ['@stryker-mutator/vitest-runner', './scripts/lib/stryker-ignore-descriptions.mjs'],
  // transition and state `description`s are documentation for the statecharts, not behaviour
  ignorers: ['transition-descriptions'],
  mutate: ['src/machines/**/*.ts'],
  coverageAnalysis: 'perTest',
  checkers: [],
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['json', 'progress'],
  jsonReporter: { fileName: 'bench/tmp/mutation/mutation.json' },
  tempDirName: 'bench/tmp/stryker',
  cleanTempDir: true,
  ignorePatterns: ['dist', 'coverage', '.data', '.data-*', 'bench/tmp', 'tests/e2e', 'tests/server', 'public'],
  thresholds: { high: 85, low: 75, break: null },
};
export default config;
