/**
 * The floors of server/ (README, "Architecture"), checked over the real import graph: every import,
 * re-export and dynamic `import()` of every .ts/.mts/.mjs file under server/, type-only imports included.
 *
 *   platform   the ground floor (deps as interfaces, env, db and migrations, http, jobs, net, crypto,
 *              workers, uploads, log, mail, the event bus): imports nothing of the floors above
 *   voice      the call engine (engine, providers, lines, audio; no SQL, no HTTP): platform
 *   carriers   the phone carriers (REST, stream dialect): platform, voice
 *   modules    one folder per domain (server/modules/<module>/): platform, voice, carriers, and another
 *              module only through that module's `index.ts`
 *   top        main.ts, app.ts, compose.ts (the composition root), http-server.ts, call-sockets.ts:
 *              every floor below, a module through its `index.ts`
 *   cli        the command-line tools: like top, and compose.ts (they build what they need with it)
 *
 * Outside server/ a file may import the shared contract (src/api/contract, `@contract/...`) from any floor,
 * and the call machine (src/machines/callSession.machine) and the flow compiler (src/flow/compile) from voice
 * up: the engine runs them. A file no
 * floor claims fails the test, so a new one has to be placed; so does any cycle between server files (a
 * cycle through `index.ts` files included) and any cycle between modules.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVER = path.join(ROOT, 'server');

type Floor = 'contract' | 'machine' | 'platform' | 'voice' | 'carriers' | 'modules' | 'top' | 'cli';

/** Which floor a path relative to the repository belongs to (forward slashes, with extension); first match wins. */
const FLOORS: readonly [RegExp, Floor][] = [
  [/^src\/api\/contract\//, 'contract'],
  [/^src\/machines\/callSession\.machine\.ts$/, 'machine'],
  [/^src\/flow\/compile\.ts$/, 'machine'],
  [/^server\/platform\//, 'platform'],
  [/^server\/voice\//, 'voice'],
  [/^server\/carriers\//, 'carriers'],
  [/^server\/modules\/[^/]+\//, 'modules'],
  [/^server\/(main|app|compose|http-server|call-sockets)\.ts$/, 'top'],
  [/^server\/cli\//, 'cli'],
];

/** What each floor may import besides itself. */
const ALLOWED: Record<Floor, readonly Floor[]> = {
  contract: [],
  machine: ['contract'],
  platform: ['contract'],
  voice: ['contract', 'machine', 'platform'],
  carriers: ['contract', 'machine', 'platform', 'voice'],
  modules: ['contract', 'machine', 'platform', 'voice', 'carriers'],
  top: ['contract', 'machine', 'platform', 'voice', 'carriers', 'modules'],
  cli: ['contract', 'machine', 'platform', 'voice', 'carriers', 'modules', 'top'],
};

interface Edge {
  /** the importing file, relative to the repository */
  from: string;
  /** the imported file, relative to the repository (resolved: `.js` -> `.ts`, a folder -> its index.ts) */
  to: string;
}

const floorOf = (file: string): Floor | undefined => FLOORS.find(([pattern]) => pattern.test(file))?.[1];
/** `agents` for server/modules/agents/agent.repo.ts, undefined outside a module. */
const moduleOf = (file: string) => /^server\/modules\/([^/]+)\//.exec(file)?.[1];
/** Only a top-level module file may import a module from outside (never the module's own files). */
const isModuleIndex = (file: string) => /^server\/modules\/[^/]+\/index\.ts$/.test(file);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [full] : [];
  });
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/** The file an import specifier names, as Node and the `@contract/*` path alias resolve it. */
function resolve(fromFile: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('@contract/')) base = path.join(ROOT, 'src/api/contract', specifier.slice('@contract/'.length));
  else if (specifier.startsWith('.')) base = path.resolve(path.dirname(fromFile), specifier);
  else return undefined; // a package
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    path.join(base, 'index.ts'),
  ];
  const found = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
  return rel(found ?? base);
}

/** Every import of every file under server/ (static, type-only, re-export, dynamic), as file -> file. */
function importGraph(): Edge[] {
  return sourceFiles(SERVER).flatMap((file) =>
    ts
      .preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((i) => resolve(file, i.fileName))
      .filter((to): to is string => to !== undefined)
      .map((to) => ({ from: rel(file), to })),
  );
}

/** The edges that break the rule: unplaced files, wrong-way imports, a module reached past its index.ts, cycles. */
function check(edges: readonly Edge[]) {
  const unplaced = new Set<string>();
  const wrongWay: string[] = [];
  const pastIndex: string[] = [];
  const moduleEdges: Edge[] = [];
  for (const { from, to } of edges) {
    const a = floorOf(from);
    const b = floorOf(to);
    if (!a) unplaced.add(from);
    if (!b) unplaced.add(to);
    if (!a || !b) continue;
    if (a !== b && !ALLOWED[a].includes(b)) wrongWay.push(`${from} -> ${to} (${a} may not import ${b})`);
    const [ma, mb] = [moduleOf(from), moduleOf(to)];
    // (a floor that may not import modules at all is reported as a wrong-way import only)
    if (mb && ma !== mb && (a === 'modules' || ALLOWED[a].includes('modules'))) {
      if (!isModuleIndex(to)) pastIndex.push(`${from} -> ${to} (import server/modules/${mb}/index.ts)`);
      if (ma) moduleEdges.push({ from: ma, to: mb });
    }
  }
  return {
    unplaced: [...unplaced].sort(),
    wrongWay,
    pastIndex,
    fileCycles: cycles(edges),
    moduleCycles: cycles(moduleEdges),
  };
}

/**
 * The cycles of a graph: each strongly connected component of more than one node (or a node importing
 * itself), its nodes sorted and joined by ' <-> ' (Tarjan's algorithm, iterative: the graph has hundreds of files).
 */
function cycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  let counter = 0;
  for (const root of next.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; i: number }[] = [{ node: root, i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; i: number };
      const targets = next.get(frame.node) ?? [];
      if (frame.i < targets.length) {
        const w = targets[frame.i++] as string;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, i: 0 });
        } else if (onStack.has(w)) low.set(frame.node, Math.min(low.get(frame.node) ?? 0, index.get(w) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(frame.node) ?? 0));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== frame.node);
      const selfLoop = targets.includes(frame.node);
      if (component.length > 1 || selfLoop) found.push(component.sort().join(' <-> '));
    }
  }
  return found.sort();
}

describe('the floors of server/', () => {
  const graph = importGraph();

  it('reads the real import graph: static, type-only, re-export, dynamic and @contract imports', () => {
    expect(graph.length).toBeGreaterThan(600);
    expect(new Set(graph.map((e) => e.from)).size).toBeGreaterThan(120);
    // a value import, a type-only import and an aliased contract import every version of the server has
    expect(graph).toContainEqual({ from: 'server/app.ts', to: 'server/platform/http/http.ts' });
    expect(graph).toContainEqual({ from: 'server/app.ts', to: 'server/platform/deps.ts' });
    expect(graph.some((e) => e.from.startsWith('server/modules/') && e.to.startsWith('src/api/contract/'))).toBe(true);
    // the migrations are re-exported through their index
    expect(graph.some((e) => e.from === 'server/platform/db/migrations/index.ts' && e.to.includes('001_'))).toBe(true);
  });

  it('every file and import target has a floor', () => {
    expect(check(graph).unplaced).toEqual([]);
  });

  it('no import goes the wrong way', () => {
    expect(check(graph).wrongWay).toEqual([]);
  });

  it('a module is imported through its index.ts only, from other modules and from the top', () => {
    expect(check(graph).pastIndex).toEqual([]);
  });

  it('no cycle between server files', () => {
    expect(check(graph).fileCycles).toEqual([]);
  });

  it('no cycle between modules', () => {
    expect(check(graph).moduleCycles).toEqual([]);
  });
});

describe('the checker', () => {
  it('reads dynamic, type-only and re-export imports, and resolves .js, folders and @contract', () => {
    const info = ts.preProcessFile(
      [
        "import type { A } from './a.js';",
        "export { b } from '../b/index.js';",
        "const c = await import('./c.js');",
        "import { d } from '@contract/d.js';",
        "import x from 'kysely';",
      ].join('\n'),
      true,
      true,
    );
    expect(info.importedFiles.map((i) => i.fileName)).toEqual(['./a.js', '../b/index.js', './c.js', '@contract/d.js', 'kysely']);
    const from = path.join(SERVER, 'platform/http/http.ts');
    expect(resolve(from, './types.js')).toBe('server/platform/http/types.ts');
    expect(resolve(from, '../db')).toBe('server/platform/db/index.ts');
    expect(resolve(from, '@contract/call.js')).toBe('src/api/contract/call.ts');
    expect(resolve(from, 'kysely')).toBeUndefined();
  });

  it('flags an import that goes the wrong way', () => {
    const result = check([
      { from: 'server/platform/deps.ts', to: 'server/modules/conversations/index.ts' },
      { from: 'server/platform/env.ts', to: 'server/voice/providers/types.ts' },
      { from: 'server/voice/engine/conversation.ts', to: 'server/modules/providers/index.ts' },
      { from: 'server/carriers/twilio/rest.ts', to: 'server/modules/providers/index.ts' },
      { from: 'server/modules/agents/agent.routes.ts', to: 'server/compose.ts' },
      { from: 'server/app.ts', to: 'server/cli/seed.ts' },
      { from: 'server/platform/db/index.ts', to: 'src/machines/callSession.machine.ts' },
    ]);
    expect(result.wrongWay).toEqual([
      'server/platform/deps.ts -> server/modules/conversations/index.ts (platform may not import modules)',
      'server/platform/env.ts -> server/voice/providers/types.ts (platform may not import voice)',
      'server/voice/engine/conversation.ts -> server/modules/providers/index.ts (voice may not import modules)',
      'server/carriers/twilio/rest.ts -> server/modules/providers/index.ts (carriers may not import modules)',
      'server/modules/agents/agent.routes.ts -> server/compose.ts (modules may not import top)',
      'server/app.ts -> server/cli/seed.ts (top may not import cli)',
      'server/platform/db/index.ts -> src/machines/callSession.machine.ts (platform may not import machine)',
    ]);
  });

  it('flags a module reached past its index.ts, from another module and from the top', () => {
    const result = check([
      { from: 'server/modules/calls/call.routes.ts', to: 'server/modules/auth/middleware.ts' },
      { from: 'server/compose.ts', to: 'server/modules/webhooks/worker.ts' },
      { from: 'server/modules/calls/call.routes.ts', to: 'server/modules/auth/index.ts' },
      { from: 'server/modules/calls/call.routes.ts', to: 'server/modules/calls/call.repo.ts' },
    ]);
    expect(result.pastIndex).toEqual([
      'server/modules/calls/call.routes.ts -> server/modules/auth/middleware.ts (import server/modules/auth/index.ts)',
      'server/compose.ts -> server/modules/webhooks/worker.ts (import server/modules/webhooks/index.ts)',
    ]);
    expect(result.wrongWay).toEqual([]);
  });

  it('flags a cycle between files, through index files too, and names its files', () => {
    const result = check([
      { from: 'server/platform/http/idempotency.ts', to: 'server/platform/http/types.ts' },
      { from: 'server/platform/http/types.ts', to: 'server/platform/http/idempotency.ts' },
      { from: 'server/modules/calls/index.ts', to: 'server/modules/calls/detail.ts' },
      { from: 'server/modules/calls/detail.ts', to: 'server/modules/webhooks/index.ts' },
      { from: 'server/modules/webhooks/index.ts', to: 'server/modules/webhooks/outbox.ts' },
      { from: 'server/modules/webhooks/outbox.ts', to: 'server/modules/calls/index.ts' },
      { from: 'server/voice/audio/wav.ts', to: 'server/voice/audio/wav.ts' },
    ]);
    expect(result.fileCycles).toEqual([
      'server/modules/calls/detail.ts <-> server/modules/calls/index.ts <-> server/modules/webhooks/index.ts <-> server/modules/webhooks/outbox.ts',
      'server/platform/http/idempotency.ts <-> server/platform/http/types.ts',
      'server/voice/audio/wav.ts',
    ]);
    expect(result.moduleCycles).toEqual(['calls <-> webhooks']);
  });

  it('flags a cycle between modules that no file cycle shows', () => {
    const result = check([
      { from: 'server/modules/conversations/ws.ts', to: 'server/modules/telephony/index.ts' },
      { from: 'server/modules/telephony/index.ts', to: 'server/modules/telephony/service.ts' },
      { from: 'server/modules/telephony/service.ts', to: 'server/modules/conversations/index.ts' },
      { from: 'server/modules/conversations/index.ts', to: 'server/modules/conversations/runtime.ts' },
    ]);
    expect(result.fileCycles).toEqual([]);
    expect(result.moduleCycles).toEqual(['conversations <-> telephony']);
  });

  it('accepts imports the rule allows', () => {
    const edges = [
      { from: 'server/main.ts', to: 'server/compose.ts' },
      { from: 'server/compose.ts', to: 'server/modules/webhooks/index.ts' },
      { from: 'server/cli/seed.ts', to: 'server/compose.ts' },
      { from: 'server/modules/calls/call.routes.ts', to: 'server/modules/auth/index.ts' },
      { from: 'server/modules/calls/call.routes.ts', to: 'server/voice/engine/failures.ts' },
      { from: 'server/modules/telephony/service.ts', to: 'server/carriers/twilio/rest.ts' },
      { from: 'server/carriers/twilio/stream.ts', to: 'server/voice/lines/types.ts' },
      { from: 'server/voice/lines/types.ts', to: 'src/machines/callSession.machine.ts' },
      { from: 'server/voice/engine/conversation.ts', to: 'server/platform/log/logger.ts' },
      { from: 'server/platform/deps.ts', to: 'src/api/contract/call.ts' },
    ];
    expect(check(edges)).toEqual({ unplaced: [], wrongWay: [], pastIndex: [], fileCycles: [], moduleCycles: [] });
  });

  it('flags a file no floor claims, in server/ or outside it', () => {
    const result = check([
      { from: 'server/helpers/x.ts', to: 'server/platform/deps.ts' },
      { from: 'server/modules/index.ts', to: 'server/modules/agents/index.ts' },
      { from: 'server/voice/engine/conversation.ts', to: 'src/routes/index.tsx' },
    ]);
    expect(result.unplaced).toEqual(['server/helpers/x.ts', 'server/modules/index.ts', 'src/routes/index.tsx']);
  });
});
