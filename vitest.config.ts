import path from 'node:path';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';
import { defineConfig } from 'vitest/config';

/** The shared contract, as the server imports it (tsconfig.json `paths`; tsx and esbuild read it there). */
const contractAlias = { '@contract': path.resolve(import.meta.dirname, 'src/api/contract') };

/**
 * Three projects: unit (machines, client logic, pure server services), server (real HTTP against
 * createApp on SQLite, and PostgreSQL when TEST_DATABASE_URL is set), e2e (Chromium against the
 * built app started like `npm start`).
 */
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [vanillaExtractPlugin()],
        resolve: { alias: contractAlias },
        test: {
          name: 'unit',
          include: ['tests/machines/**/*.test.ts', 'tests/unit/**/*.test.ts', 'tests/unit/**/*.test.tsx'],
          environment: 'node',
        },
      },
      {
        resolve: { alias: contractAlias },
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias: contractAlias },
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          // the browser answers in well under a second, but a busy 2-core CI machine can take longer:
          // expect.poll waits up to 10 s (a wait, never a timing assertion)
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
