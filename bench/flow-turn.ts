/**
 * The per-turn cost of a conversation flow on the server (server/voice/engine/flow.ts): what an agent turn
 * asks of the flow run (its system prompt, its tools, one transition), and what a chat message adds (the
 * run rebuilt from its saved state: the flow compiled, its events replayed). Two flows: the example
 * receptionist (docs/examples/receptionist-flow.json, 13 nodes) and a generated one of 200 nodes and 400
 * edges with 5 global nodes. CPU-bound and synchronous: timed with performance.now() over many runs, p50
 * and p95 reported. Budget: p95 <= 5 ms a turn.
 *
 *   npx tsx bench/flow-turn.ts     prints the figures
 */
import fs from 'node:fs';
import { type Flow, FlowSchema } from '@contract/agent/flow';
import * as v from 'valibot';
import { FlowRun } from '../server/voice/engine/flow.js';

export const BUDGET_TURN_MS = 5;
const RUNS = 500;

const example = JSON.parse(fs.readFileSync('docs/examples/receptionist-flow.json', 'utf8')) as { agent: { flow: unknown } };

/** A chain of `n` conversation nodes, each with a prompt edge forward and one back to the start, and 5 global nodes. */
function generated(n: number): Flow {
  const nodes: unknown[] = [];
  for (let i = 0; i < n - 5; i++)
    nodes.push({
      id: `n${i}`,
      type: 'conversation',
      name: `Step ${i}`,
      instruction: { type: 'prompt', text: `Ask the caller question ${i} about {{topic}}.` },
      edges: [
        { id: `f${i}`, to: `n${(i + 1) % (n - 5)}`, condition: { type: 'prompt', prompt: `The caller answered question ${i}` } },
        { id: `b${i}`, to: 'n0', condition: { type: 'prompt', prompt: 'The caller wants to start over' } },
      ],
    });
  for (let g = 0; g < 5; g++)
    nodes.push({
      id: `g${g}`,
      type: 'conversation',
      name: `Global ${g}`,
      global: { condition: { type: 'prompt', prompt: `The caller asks about subject ${g}` }, return: 'return' },
      instruction: { type: 'static_text', text: `About subject ${g}.` },
      edges: [],
    });
  return v.parse(FlowSchema, { start_node_id: 'n0', global_prompt: 'You are a survey agent.', nodes });
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function measure(label: string, fn: () => void) {
  for (let i = 0; i < 20; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const p95 = percentile(times, 95);
  console.log(`${label.padEnd(64)} p50 ${p50.toFixed(3)} ms  p95 ${p95.toFixed(3)} ms  ${p95 <= BUDGET_TURN_MS ? 'ok' : 'OVER'}`);
  return { p50, p95 };
}

const clock = () => new Date();
for (const [name, flow, moves] of [
  ['receptionist (13 nodes)', v.parse(FlowSchema, example.agent.flow), ['next_greet-wants-visit']],
  ['generated (200 nodes, 400 edges)', generated(200), Array.from({ length: 20 }, (_, i) => `next_f${i}`)],
] as const) {
  // a run part way through the flow: its saved state after `moves`
  const before = new FlowRun(flow, { topic: 'health' }, clock);
  for (const m of moves) before.call(m, {});
  const saved = JSON.parse(JSON.stringify(before.state()));
  measure(`${name}: a turn (prompt, tools, one transition)`, () => {
    const run = new FlowRun(flow, { topic: 'health' }, clock, saved);
    run.prompt();
    const tools = run.tools();
    run.call(tools[0]?.name ?? '', {});
    run.prompt();
    run.tools();
  });
  const live = new FlowRun(flow, { topic: 'health' }, clock, saved);
  measure(`${name}: a voice turn (the run already built)`, () => {
    live.prompt();
    live.tools();
  });
}
