// Reading Vite's build manifest (dist/client/.vite/manifest.json) and the built HTML: shared by the
// prerender (scripts/prerender.mjs: which files a page preloads) and the bundle report (scripts/bench.mjs:
// what each route's first load weighs).

/** Adds to `into` the manifest keys statically reachable from `keys` (themselves included); returns it. */
export function reachable(manifest, keys, into = new Set()) {
  const visit = (key) => {
    if (into.has(key) || !manifest[key]) return;
    into.add(key);
    for (const k of manifest[key].imports ?? []) visit(k);
  };
  for (const key of keys) visit(key);
  return into;
}

/** Files an HTML page loads itself (its entry script, module preloads and stylesheets). */
export const filesOfHtml = (html) =>
  new Set([...html.matchAll(/(?:href|src)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]));
