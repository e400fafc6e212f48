import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const apiPort = Number(process.env.API_PORT ?? 3001);

const pkg = (names: string[]) => new RegExp(`[\\\\/]node_modules[\\\\/](${names.join('|')})[\\\\/]`);

/**
 * Fewer, larger chunks for what every page needs. Left to itself the bundler cut the dashboard's first load
 * into about 30 files, many under 1 KB; over HTTP/1.1 (six connections) each costs a round trip, which
 * on a mobile network (150 ms) delayed the first paint by about a second. Groups instead:
 * - `vendor`: the libraries every page runs (React, the router, XState, valibot, ofetch);
 * - `table`: TanStack Table, for the signed-in screens' lists (not in the landing page's app);
 * - `ariakit`: Ariakit and Floating UI, with our components built on them (dialogs, popovers, tabs,
 *   tooltips, and the menu and select implementations that `Menu` and `Select` load on first use): only
 *   the screens and dialogs that show one load it, so the Agents page's first load does not;
 * - `app`: our modules that three or more chunks share (UI components, API calls, machines, contracts);
 * - `boot-shared`: what the prerendered pages' scripts (boot.ts, early.ts) share with the app, loaded before
 *   the app: one instance of each module for both (the early requests early.ts sends, the app takes).
 * Route pages and what only one or two of them use stay in chunks of their own, loaded with the route.
 */
const ARIAKIT_WRAPPERS = /[\\/]src[\\/]ui[\\/](dialog|alert-dialog|popover|tabs|tooltip|checkbox)[\\/]|-impl\.tsx$/;
/**
 * The agent editors' parts: shared by the single-prompt and the flow editor's routes, they use popovers; kept
 * out of `app` (which the Agents page loads first) so Ariakit is not pulled in with it.
 */
const EDITOR_PARTS = /[\\/]src[\\/]routes[\\/]dashboard[\\/]agents[\\/]-components[\\/]/;

const codeSplitting = {
  groups: [
    {
      name: 'vendor',
      test: pkg([
        'react',
        'react-dom',
        'scheduler',
        '@tanstack/react-router',
        '@tanstack/router-core',
        '@tanstack/history',
        '@tanstack/store',
        '@tanstack/react-store',
        'xstate',
        '@xstate/react',
        'valibot',
        'ofetch',
        'ufo',
        'destr',
        'use-sync-external-store',
        'tiny-invariant',
        'tiny-warning',
        'cookie-es',
        'seroval',
        'seroval-plugins',
        '@vanilla-extract/recipes',
      ]),
      priority: 3,
    },
    { name: 'table', test: pkg(['@tanstack/table-core', '@tanstack/react-table']), priority: 2 },
    { name: 'ariakit', test: pkg(['@ariakit/[^\\\\/]+', '@floating-ui/[^\\\\/]+']), priority: 2 },
    {
      name: 'boot-shared',
      test: /[\\/]src[\\/](landing[\\/]boot-dom|session[\\/]keys|api[\\/]early)|preload-helper/,
      priority: 4,
    },
    {
      name: 'app',
      test: (id: string) => /[\\/]src[\\/]/.test(id) && !ARIAKIT_WRAPPERS.test(id) && !EDITOR_PARTS.test(id),
      minShareCount: 3,
      priority: 1,
    },
  ],
};

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      routesDirectory: './src/routes',
      generatedRouteTree: './src/routeTree.gen.ts',
      routeFileIgnorePrefix: '-',
      quoteStyle: 'single',
    }),
    react(),
    vanillaExtractPlugin(),
  ],
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    rolldownOptions: {
      // the SPA (index.html), the landing page's boot script (landing.html) and dashboard.html's early
      // requests (scripts/prerender.mjs)
      // (the SSR build of src/landing/prerender.tsx names its own input)
      input: isSsrBuild ? undefined : { index: 'index.html', boot: 'src/landing/boot.ts', early: 'src/landing/early.ts' },
      output: isSsrBuild ? undefined : { codeSplitting },
    },
  },
  server: {
    port: Number(process.env.PORT ?? 5173),
    proxy: { '/api': `http://127.0.0.1:${apiPort}` },
  },
  worker: { format: 'es' },
}));
