import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';
import react from '@vitejs/plugin-react';
import { defineConfig, type HtmlTagDescriptor, type Plugin } from 'vite';

const apiPort = Number(process.env.API_PORT ?? 3001);

/**
 * Preloads the landing page's route chunks (the page most visitors open first) from index.html: without
 * it the browser learns of them only once the entry has run and the router has matched `/`, one more
 * round trip before the first paint (Lighthouse's simulated mobile network: about 150 ms and more).
 * `npm run bench` counts what index.html loads in the first load of every route.
 */
function preloadLandingRoute(): Plugin {
  return {
    name: 'parley:preload-landing-route',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const tags: HtmlTagDescriptor[] = [];
        for (const chunk of Object.values(ctx.bundle ?? {})) {
          if (chunk.type !== 'chunk' || !/\/src\/routes\/index\.tsx\?tsr-split=/.test(chunk.facadeModuleId ?? '')) continue;
          for (const file of [chunk.fileName, ...chunk.imports])
            if (!html.includes(`/${file}"`))
              tags.push({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` }, injectTo: 'head' });
          for (const file of chunk.viteMetadata?.importedCss ?? [])
            tags.push({
              tag: 'link',
              attrs: { rel: 'preload', as: 'style', crossorigin: true, href: `/${file}` },
              injectTo: 'head',
            });
        }
        return tags;
      },
    },
  };
}

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
    preloadLandingRoute(),
  ],
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    rolldownOptions: {
      // the SPA (index.html) and the landing page's boot script (landing.html: scripts/prerender.mjs)
      // (the SSR build of src/landing/prerender.tsx names its own input)
      input: isSsrBuild ? undefined : { index: 'index.html', boot: 'src/landing/boot.ts' },
    },
  },
  server: {
    port: Number(process.env.PORT ?? 5173),
    proxy: { '/api': `http://127.0.0.1:${apiPort}` },
  },
  worker: { format: 'es' },
}));
