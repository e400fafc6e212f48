/**
 * `npm run statecharts`: turns every machine exported by src/machines/*.machine.ts into
 * docs/statecharts/<machine>.md (a Mermaid stateDiagram-v2 plus tables of states and transitions)
 * and docs/statecharts/README.md (the index). Output is deterministic: no timestamps, document order.
 *
 * `--check`: regenerates in memory and exits 1 naming every file that differs from the committed one
 * (changed, missing or no longer generated). `npm test` and CI run it.
 *
 * Both modes also exit 1 when a chart would not read for a product owner: a transition without a
 * `description`, or an action without a name (an inline `assign(...)` or function shows as `assign` or
 * `inline action`: declare it in the machine's `setup({ actions })` and refer to it by name).
 * `--check` decides with `checkAll` (tests/unit/statecharts-check.test.ts proves it fails).
 *
 * `--machines <dir> --out <dir>` read and write elsewhere than src/machines and docs/statecharts (the
 * test runs the CLI on a machine of its own this way).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { allStateNodes, type DeclaredTransition, declaredTransitions, formatTransition } from './lib/machine-graph.js';

const root = path.resolve(import.meta.dirname, '..');

interface FoundMachine {
  name: string;
  exportName: string;
  file: string;
  machine: AnyStateMachine;
}

const isMachine = (v: unknown): v is AnyStateMachine =>
  !!v && typeof v === 'object' && 'root' in v && 'config' in v && typeof (v as { provide?: unknown }).provide === 'function';

export async function findMachines(machinesDir = path.join(root, 'src/machines')): Promise<FoundMachine[]> {
  const files = fs.existsSync(machinesDir)
    ? fs
        .readdirSync(machinesDir)
        .filter((f) => f.endsWith('.machine.ts'))
        .sort()
    : [];
  const found: FoundMachine[] = [];
  for (const f of files) {
    const file = path.join(machinesDir, f);
    const shown = path.relative(root, file).split(path.sep).join('/');
    let mod: Record<string, unknown>;
    try {
      mod = await import(pathToFileURL(file).href);
    } catch (e) {
      throw new Error(`Cannot import ${shown}: ${e instanceof Error ? e.message : String(e)}`);
    }
    for (const [exportName, value] of Object.entries(mod).sort(([a], [b]) => a.localeCompare(b))) {
      if (isMachine(value)) found.push({ name: value.id, exportName, file: shown, machine: value });
    }
  }
  // a machine without its own id, or two machines with one id, are named by their export
  const counts = new Map<string, number>();
  for (const m of found) counts.set(m.name, (counts.get(m.name) ?? 0) + 1);
  for (const m of found)
    if (m.name === '(machine)' || (counts.get(m.name) ?? 0) > 1) m.name = m.exportName.replace(/Machine$/, '');
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

// ---------- Mermaid ----------

const RESERVED = new Set(['end', 'state', 'note', 'direction', 'class', 'classdef', 'style', 'click', 'as']);

function mermaidId(node: AnyStateNode): string {
  const raw = node.path.length ? node.path.join('_') : node.machine.id;
  const id = raw.replace(/[^A-Za-z0-9_]/g, '_');
  return RESERVED.has(id.toLowerCase()) ? `${id}_` : id;
}

/** Mermaid entity codes for characters that end or confuse a label. */
const mermaidText = (s: string) => s.replace(/[:;#{}<>"]/g, (c) => `#${c.charCodeAt(0)};`);

function transitionText(t: DeclaredTransition): string {
  let label = t.eventLabel;
  if (t.guard) label += ` [${t.guard}]`;
  if (t.actions.length) label += ` / ${t.actions.join(', ')}`;
  return mermaidText(label);
}

function mermaid(machine: AnyStateMachine, transitions: DeclaredTransition[]): string {
  const lines: string[] = ['stateDiagram-v2'];
  const byId = new Map(allStateNodes(machine).map((n) => [n.id, n]));
  const bySource = new Map<string, DeclaredTransition[]>();
  for (const t of transitions) bySource.set(t.source, [...(bySource.get(t.source) ?? []), t]);
  const rootHasTransitions = (bySource.get(machine.root.id) ?? []).length > 0;

  const edges = (node: AnyStateNode, indent: string) => {
    for (const t of bySource.get(node.id) ?? []) {
      const from = mermaidId(node);
      const targets = t.targets.length ? t.targets : [node.id];
      for (const target of targets) {
        const to = byId.get(target);
        if (to) lines.push(`${indent}${from} --> ${mermaidId(to)}: ${transitionText(t)}`);
      }
    }
  };

  const children = (node: AnyStateNode, indent: string) => {
    const kids = Object.values(node.states) as AnyStateNode[];
    if (node.type === 'parallel') {
      kids.forEach((kid, i) => {
        if (i > 0) lines.push(`${indent}--`);
        declare(kid, indent);
        block(kid, indent);
      });
      return;
    }
    for (const kid of kids) declare(kid, indent);
    const initial = node.initial?.target?.[0] as AnyStateNode | undefined;
    if (initial) lines.push(`${indent}[*] --> ${mermaidId(initial)}`);
    for (const kid of kids) block(kid, indent);
    for (const kid of kids) if (kid.type === 'final') lines.push(`${indent}${mermaidId(kid)} --> [*]`);
  };

  /** Names a state before any arrow refers to it (ids are paths; the label is the state's key). */
  function declare(node: AnyStateNode, indent: string) {
    const id = mermaidId(node);
    const label = node.type === 'history' ? `${node.key} (history)` : node.key;
    if (label !== id) lines.push(`${indent}state "${mermaidText(label)}" as ${id}`);
  }

  function block(node: AnyStateNode, indent: string) {
    const id = mermaidId(node);
    if (Object.keys(node.states).length) {
      lines.push(`${indent}state ${id} {`);
      children(node, `${indent}  `);
      lines.push(`${indent}}`);
    }
    edges(node, indent);
  }

  if (rootHasTransitions) {
    // machine-wide transitions leave the machine's outer box
    block(machine.root, '  ');
    lines.splice(1, 0, `  [*] --> ${mermaidId(machine.root)}`);
  } else {
    children(machine.root, '  ');
  }
  return lines.join('\n');
}

// ---------- Markdown ----------

const cell = (s: string | undefined) => (s ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const code = (s: string | undefined) => (s ? `\`${s.replace(/`/g, "'")}\`` : '');

function stateType(node: AnyStateNode): string {
  const parent = node.parent as AnyStateNode | undefined;
  const isInitial = parent?.initial?.target?.some((t: AnyStateNode) => t === node);
  return `${node.type}${isInitial ? ', initial' : ''}`;
}

function renderMachine(m: FoundMachine): string {
  const { machine } = m;
  const transitions = declaredTransitions(machine);
  const nodes = allStateNodes(machine);
  const out: string[] = [];
  out.push(`# ${m.name}`, '');
  out.push(
    `Generated by \`npm run statecharts\` from [\`${m.file}\`](../../${m.file}) (export \`${m.exportName}\`). Do not edit by hand.`,
    '',
  );
  if (machine.root.description) out.push(machine.root.description, '');
  out.push('```mermaid', mermaid(machine, transitions), '```', '');

  out.push('## States', '', '| State | Type | Description | Tags |', '| --- | --- | --- | --- |');
  for (const node of nodes.slice(1)) {
    const tags = [...(node.tags ?? [])].sort().map(code).join(', ');
    out.push(`| ${code(node.id)} | ${stateType(node)} | ${cell(node.description)} | ${tags} |`);
  }
  out.push('');

  out.push(
    '## Transitions',
    '',
    '| Source | Event | Guard | Target | Actions | Description |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const t of transitions) {
    const target = t.targets.length ? t.targets.map(code).join(', ') : '(stays)';
    out.push(
      `| ${code(t.source)} | ${code(t.eventLabel)} | ${code(t.guard)} | ${target} | ${t.actions.map(code).join(', ')} | ${cell(t.description)} |`,
    );
  }
  out.push('');

  const invokes = nodes.flatMap((n) =>
    (n.invoke ?? []).map((inv: { id: string; src: unknown }) => ({ state: n.id, id: inv.id, src: inv.src })),
  );
  if (invokes.length) {
    out.push('## Invoked actors', '', '| State | Actor | Id |', '| --- | --- | --- |');
    for (const i of invokes)
      out.push(`| ${code(i.state)} | ${code(typeof i.src === 'string' ? i.src : 'inline')} | ${code(i.id)} |`);
    out.push('');
  }
  return out.join('\n');
}

function renderIndex(machines: FoundMachine[]): string {
  const out = [
    '# Statecharts',
    '',
    'Generated by `npm run statecharts` from every machine in `src/machines`. Do not edit by hand:',
    '`npm test` (and CI) fail when these files differ from freshly generated ones.',
    '',
    '| Machine | Source | States | Transitions | Description |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const m of machines) {
    const states = allStateNodes(m.machine).length - 1;
    const transitions = declaredTransitions(m.machine).length;
    out.push(`| [${m.name}](${m.name}.md) | \`${m.file}\` | ${states} | ${transitions} | ${cell(m.machine.root.description)} |`);
  }
  out.push('');
  return out.join('\n');
}

/** What keeps a chart from reading on its own: each transition without a description or with an unnamed action. */
export function unreadable(machines: readonly Pick<FoundMachine, 'name' | 'machine'>[]): string[] {
  const problems: string[] = [];
  for (const m of machines) {
    for (const t of declaredTransitions(m.machine)) {
      const where = `${m.name}: ${formatTransition(t)}`;
      if (!t.description?.trim()) problems.push(`${where} has no description`);
      const unnamed = t.actions.filter((a) => a === 'assign' || a === 'inline action');
      if (unnamed.length) problems.push(`${where} has an unnamed action (${unnamed.join(', ')})`);
    }
  }
  return problems;
}

/** Every chart and the index, by file name. */
export async function generate(machines?: FoundMachine[]): Promise<Map<string, string>> {
  const found = machines ?? (await findMachines());
  const files = new Map<string, string>();
  for (const m of found) files.set(`${m.name}.md`, renderMachine(m));
  files.set('README.md', renderIndex(found));
  return files;
}

export interface CheckResult {
  /** generated files that differ from the committed ones: `<file> (missing | out of date | no such machine any more)` */
  stale: string[];
  /** what `unreadable` finds */
  unreadable: string[];
}

/**
 * What `--check` fails on: `files` (generated) against `existing` (the committed charts, by file name),
 * and every chart a product owner could not read.
 */
export function checkAll(
  files: ReadonlyMap<string, string>,
  existing: ReadonlyMap<string, string>,
  machines: readonly Pick<FoundMachine, 'name' | 'machine'>[],
): CheckResult {
  const stale: string[] = [];
  for (const [name, content] of files) {
    const committed = existing.get(name);
    if (committed === undefined) stale.push(`${name} (missing)`);
    else if (committed !== content) stale.push(`${name} (out of date)`);
  }
  for (const name of existing.keys()) if (!files.has(name)) stale.push(`${name} (no such machine any more)`);
  return { stale, unreadable: unreadable(machines) };
}

/** The charts in `dir`, by file name. */
function committedCharts(dir: string): Map<string, string> {
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.md')) : [];
  return new Map(names.map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8')]));
}

/** The directory after `name` on the command line (else `fallback`), resolved against the repository. */
function dirOption(argv: readonly string[], name: string, fallback: string): string {
  const at = argv.indexOf(name);
  const value = at >= 0 ? argv[at + 1] : undefined;
  if (at >= 0 && !value) throw new Error(`${name} needs a directory`);
  return path.resolve(root, value ?? fallback);
}

async function main(argv: readonly string[]) {
  const check = argv.includes('--check');
  const machinesDir = dirOption(argv, '--machines', 'src/machines');
  const outDir = dirOption(argv, '--out', 'docs/statecharts');
  const shownOut = path.relative(root, outDir).split(path.sep).join('/');
  const machines = await findMachines(machinesDir);
  const files = await generate(machines);
  const existing = committedCharts(outDir);
  if (check) {
    const result = checkAll(files, existing, machines);
    if (result.stale.length)
      process.stderr.write(
        `Statecharts are stale in ${shownOut}/: ${result.stale.join(', ')}. Run \`npm run statecharts\` and commit ${shownOut}.\n`,
      );
    if (result.unreadable.length) failUnreadable(result.unreadable);
    if (result.stale.length) process.exit(1);
    process.stdout.write(`Statecharts are up to date (${files.size - 1} machines).\n`);
    return;
  }
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of existing.keys()) if (!files.has(name)) fs.rmSync(path.join(outDir, name));
  for (const [name, content] of files) if (existing.get(name) !== content) fs.writeFileSync(path.join(outDir, name), content);
  process.stdout.write(`Wrote ${files.size - 1} statecharts and the index to ${shownOut}/\n`);
  const problems = unreadable(machines);
  if (problems.length) failUnreadable(problems);
}

function failUnreadable(problems: readonly string[]): never {
  process.stderr.write(
    `Statecharts a product owner cannot read (${problems.length}):\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
      'Give every transition a `description` and every action a name (src/machines/*.machine.ts).\n',
  );
  process.exit(1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((e) => {
    process.stderr.write(`statecharts: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
