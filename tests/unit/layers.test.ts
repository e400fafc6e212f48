/**
 * The layer rule of src/ (README, "Architecture"), checked over the real import graph: every relative
 * import, re-export and dynamic `import()` of every .ts/.tsx file under src/, type-only imports included.
 *
 *   api/contract  imports nothing outside itself (valibot and other packages are fine)
 *   api           the HTTP client and resource modules: api/contract only. The client does not import
 *                 src/session: src/session binds the tokens and the 401 flow into it (`SessionBridge`).
 *   ui            primitives: only src/ui (the app binds what ui reports, e.g. a failed lazy download)
 *   drafts        IndexedDB drafts of the agent editor: api/contract only
 *   recipients    the batch CSV parser and its worker: api/contract only
 *   audio         the browser's audio for calls (microphone worklet, playback, the call's socket):
 *                 api/contract only; machines and routes may import it, it imports nothing of theirs or of ui
 *   flow          conversation flows as statecharts (the compiler the server runs, the editor's pure edits):
 *                 api/contract only; machines and routes may import it
 *   machines      machines, api, api/contract, drafts, recipients, audio; never ui, routes or session
 *                 (src/session builds its actor from machines/session.machine, so an edge back would be
 *                 a cycle: a machine gets session effects through `.provide()` where it is created)
 *   session       the session actor and its bindings: api, api/contract, machines, drafts
 *   app           what the routes share that sits above the machines: the toaster (its actor, `toast()`,
 *                 the `notify` action machines are provided with): machines, api, api/contract, ui
 *   routes        (with the generated routeTree.gen.ts) anything but the entry points
 *   entry         main.tsx and landing/ (the landing page's boot script starts main.tsx): they wire
 *
 * and no cycle between layers. A folder or file under src/ that no layer claims fails the test, so a new
 * one has to be placed.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

type Layer =
  | 'api/contract'
  | 'api'
  | 'ui'
  | 'drafts'
  | 'recipients'
  | 'audio'
  | 'flow'
  | 'machines'
  | 'session'
  | 'app'
  | 'routes'
  | 'entry';

/** Which layer a path under src/ (forward slashes, no extension needed) belongs to; first match wins. */
const LAYERS: readonly [RegExp, Layer][] = [
  [/^api\/contract(\/|$)/, 'api/contract'],
  [/^api(\/|$)/, 'api'],
  [/^ui(\/|$)/, 'ui'],
  [/^drafts(\/|$)/, 'drafts'],
  [/^recipients(\/|$)/, 'recipients'],
  [/^audio(\/|$)/, 'audio'],
  [/^flow(\/|$)/, 'flow'],
  [/^machines(\/|$)/, 'machines'],
  [/^session(\/|$)/, 'session'],
  [/^app(\/|$)/, 'app'],
  [/^routes(\/|$)|^routeTree\.gen(\.ts)?$/, 'routes'],
  [/^main(\.tsx)?$|^landing(\/|$)/, 'entry'],
];

const ALL: readonly Layer[] = [
  'api/contract',
  'api',
  'ui',
  'drafts',
  'recipients',
  'audio',
  'flow',
  'machines',
  'session',
  'app',
  'routes',
  'entry',
];

/** What each layer may import besides itself. */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  'api/contract': [],
  api: ['api/contract'],
  ui: [],
  drafts: ['api/contract'],
  recipients: ['api/contract'],
  audio: ['api/contract'],
  flow: ['api/contract'],
  machines: ['api', 'api/contract', 'drafts', 'recipients', 'audio', 'flow'],
  session: ['api', 'api/contract', 'machines', 'drafts'],
  app: ['api', 'api/contract', 'ui', 'machines'],
  routes: ['api', 'api/contract', 'ui', 'drafts', 'recipients', 'audio', 'flow', 'machines', 'session', 'app'],
  entry: ALL,
};

interface Edge {
  /** the importing file, relative to src/ */
  from: string;
  /** the imported module, relative to src/ (as the specifier resolves, without extension) */
  to: string;
}

function layerOf(rel: string): Layer | undefined {
  return LAYERS.find(([pattern]) => pattern.test(rel))?.[1];
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const rel = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

/** Every relative import under src/ (static, re-export, dynamic), as file -> module. */
function importGraph(): Edge[] {
  return sourceFiles(SRC).flatMap((file) =>
    ts
      .preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
      .importedFiles.filter((i) => i.fileName.startsWith('.'))
      .map((i) => ({ from: rel(file), to: rel(path.resolve(path.dirname(file), i.fileName)) })),
  );
}

/** The edges that break the rule: unplaced files, wrong-way imports, and layer cycles. */
function check(edges: readonly Edge[]) {
  const unplaced = new Set<string>();
  const wrongWay: string[] = [];
  const layerEdges = new Map<Layer, Set<Layer>>();
  for (const { from, to } of edges) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (!a) unplaced.add(from);
    if (!b) unplaced.add(to);
    if (!a || !b || a === b) continue;
    if (!ALLOWED[a].includes(b)) wrongWay.push(`${from} -> ${to} (${a} may not import ${b})`);
    layerEdges.set(a, (layerEdges.get(a) ?? new Set()).add(b));
  }
  return {
    unplaced: [...unplaced],
    wrongWay,
    cycles: layerCycles(layerEdges),
  };
}

/** Each cycle between layers once, as `a -> b -> a` (depth-first; a back edge closes a cycle). */
function layerCycles(graph: ReadonlyMap<Layer, ReadonlySet<Layer>>): string[] {
  const found = new Set<string>();
  const visit = (node: Layer, trail: Layer[]) => {
    for (const next of graph.get(node) ?? []) {
      const at = trail.indexOf(next);
      if (at >= 0) {
        const loop = trail.slice(at);
        // rotate so the same cycle found from another start is reported once
        const start = loop.indexOf([...loop].sort()[0] as Layer);
        const canonical = [...loop.slice(start), ...loop.slice(0, start)];
        found.add([...canonical, canonical[0]].join(' -> '));
      } else visit(next, [...trail, next]);
    }
  };
  for (const node of graph.keys()) visit(node, [node]);
  return [...found];
}

describe('the layer rule of src/', () => {
  const graph = importGraph();

  it('reads the real import graph', () => {
    // the scan itself works: a few edges every version of the app has
    expect(graph.length).toBeGreaterThan(500);
    expect(graph).toContainEqual({ from: 'api/agents.ts', to: 'api/contract/agent/query' });
  });

  it('every file and import target has a layer', () => {
    expect(check(graph).unplaced).toEqual([]);
  });

  it('no import goes the wrong way', () => {
    expect(check(graph).wrongWay).toEqual([]);
  });

  it('no cycle between layers', () => {
    expect(check(graph).cycles).toEqual([]);
  });
});

describe('the checker', () => {
  it('flags an import that goes the wrong way', () => {
    const result = check([
      { from: 'ui/button/button.tsx', to: 'machines/session.machine' },
      { from: 'api/contract/agent.ts', to: 'api/client' },
      { from: 'machines/x.machine.ts', to: 'routes/dashboard/index' },
      { from: 'api/client.ts', to: 'session/index' },
    ]);
    expect(result.wrongWay).toEqual([
      'ui/button/button.tsx -> machines/session.machine (ui may not import machines)',
      'api/contract/agent.ts -> api/client (api/contract may not import api)',
      'machines/x.machine.ts -> routes/dashboard/index (machines may not import routes)',
      'api/client.ts -> session/index (api may not import session)',
    ]);
  });

  it('flags a cycle between layers', () => {
    const result = check([
      { from: 'machines/a.machine.ts', to: 'session/index' },
      { from: 'session/index.ts', to: 'machines/a.machine' },
    ]);
    expect(result.cycles).toEqual(['machines -> session -> machines']);
  });

  it('accepts imports the rule allows, the app layer between routes and machines included', () => {
    const edges = [
      { from: 'routes/dashboard/index.tsx', to: 'machines/agentDelete.machine' },
      { from: 'routes/dashboard/index.tsx', to: 'app/toaster' },
      { from: 'app/toaster.ts', to: 'machines/toaster.machine' },
      { from: 'app/Notifications.tsx', to: 'ui/button/button' },
      { from: 'machines/agentDelete.machine.ts', to: 'api/agents' },
      { from: 'api/agents.ts', to: 'api/contract/agent/query' },
    ];
    expect(check(edges)).toEqual({ unplaced: [], wrongWay: [], cycles: [] });
  });

  it('flags the toast plumbing going the wrong way: a machine, the client or ui reaching the toaster', () => {
    const result = check([
      { from: 'machines/batchCall.machine.ts', to: 'app/toaster' },
      { from: 'api/client.ts', to: 'app/toaster' },
      { from: 'ui/lazy-control.ts', to: 'app/toaster' },
      { from: 'app/toaster.ts', to: 'routes/__root' },
    ]);
    expect(result.wrongWay).toEqual([
      'machines/batchCall.machine.ts -> app/toaster (machines may not import app)',
      'api/client.ts -> app/toaster (api may not import app)',
      'ui/lazy-control.ts -> app/toaster (ui may not import app)',
      'app/toaster.ts -> routes/__root (app may not import routes)',
    ]);
  });

  it('flags a cycle through the app layer', () => {
    const result = check([
      { from: 'app/toaster.ts', to: 'machines/toaster.machine' },
      { from: 'machines/toaster.machine.ts', to: 'app/toaster' },
    ]);
    expect(result.cycles).toEqual(['app -> machines -> app']);
  });

  it('flags a file no layer claims', () => {
    expect(check([{ from: 'helpers/x.ts', to: 'api/client' }]).unplaced).toEqual(['helpers/x.ts']);
  });
});
