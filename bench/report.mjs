// bench/REPORT.md from bench/results.json: every figure with its budget (from the issue that set it) and
// whether it is met; for a missed one, the measurements that explain it. Written by `npm run bench` at
// the end; `node bench/report.mjs` rewrites it from the results alone (`--quick`: the quick files).
import fs from 'node:fs';
import path from 'node:path';
import { QUICK, RESULTS_FILE, readResults } from './results.mjs';

export const REPORT_FILE = path.resolve(import.meta.dirname, QUICK ? 'REPORT.quick.md' : 'REPORT.md');

const KiB = 1024;
const kib = (n) => `${(n / KiB).toFixed(1)} KiB`;
const ms = (n) => (n === undefined || n === null || Number.isNaN(n) ? 'n/a' : `${Number(n).toLocaleString('en-US')} ms`);
const s1 = (n) => `${(n / 1000).toFixed(1)} s`;
const fmt = (n) => Number(n).toLocaleString('en-US');
const esc = (text) => String(text).replaceAll('|', '\\|');
const load = (l) => (Array.isArray(l) ? `load average ${l.map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min)` : '');

/**
 * The budgeted figures: `{ id, issue, what, measured, budget, met, cause? }`, `met` undefined when the
 * section was not measured. `cause` holds the measurements that explain a miss.
 */
export function budgetRows(sections) {
  const rows = [];
  const add = (row) => rows.push(row);
  const missing = (issue, what, budget, section) =>
    add({ issue, what, measured: `not measured (no \`${section}\` section)`, budget, met: undefined });

  const b = sections.bundle;
  if (b) {
    if (b.landingPage)
      add({
        issue: 2,
        what: 'Landing page first load (prerendered landing.html before any interaction), JS / CSS / HTML (gzip)',
        measured: `${kib(b.landingPage.js.gzip)} / ${kib(b.landingPage.css.gzip)} / ${kib(b.landingPage.html.gzip)} (the app, loaded on the first interaction or prefetched at idle: ${kib(b.landing.js.gzip)} JS)`,
        budget: `JS ≤ ${kib(b.budgets.landingJsGzipBytes)}, CSS ≤ ${kib(b.budgets.landingCssGzipBytes)}`,
        met: b.landingPage.pass.js && b.landingPage.pass.css,
      });
    add({
      issue: 4,
      what: 'Dashboard (/dashboard after login) first load, JS (gzip)',
      measured:
        b.dashboard.js.br === undefined
          ? kib(b.dashboard.js.gzip)
          : `${kib(b.dashboard.js.gzip)} (brotli, as the server sends it: ${kib(b.dashboard.js.br)})`,
      budget: `< ${kib(b.budgets.dashboardJsGzipBytes)}`,
      met: b.dashboard.pass.js,
    });
  } else missing(2, 'Bundle sizes', '', 'bundle');

  const st = sections.startup;
  if (st)
    add({
      issue: 2,
      what: '`npm start` on a built tree: ready to answer',
      measured: `${ms(st.medianMs)} (median of ${st.runsMs.map(fmt).join(', ')} ms)`,
      budget: `≤ ${ms(st.budgetMs)}`,
      met: st.pass,
      cause: st.load_average ? load(st.load_average) : 'the machine load was not recorded',
    });

  const a = sections.agentsApi;
  if (a) {
    for (const m of a.measures)
      add({
        issue: 4,
        what: `Agents API, ${fmt(a.agents)} agents: ${m.label}, p95 of ${m.requests}`,
        measured: `${ms(m.p95_ms)} (median ${ms(m.median_ms)})`,
        budget: `< ${ms(a.budget_p95_ms)}`,
        met: m.p95_ms < a.budget_p95_ms,
        cause: `median ${ms(m.median_ms)}; ${a.load_average ? load(a.load_average) : 'the machine load was not recorded'}`,
      });
  } else missing(4, 'Agents list API p95', '< 10 ms', 'agentsApi');

  const e = sections.editor;
  if (e) {
    for (const r of e.bundle.routes)
      add({
        issue: 5,
        what: `Editor route ${r.route}: JS on top of the dashboard's first load (gzip)`,
        measured: kib(r.js.gzip),
        budget: `< ${kib(e.bundle.budgetGzipBytes)}`,
        met: r.pass,
        cause: `files: ${r.files.join(', ')}`,
      });
    const t = e.typing;
    add({
      issue: 5,
      what: `Typing in a ${fmt(t.promptChars)}-character prompt: every keystroke handled`,
      measured: `max ${ms(t.handledMs.max)} (median ${ms(t.handledMs.median)}, p95 ${ms(t.handledMs.p95)}; ${t.overBudget} of ${t.keystrokes} at or over)`,
      budget: `< ${ms(t.budgetMs)} each`,
      met: t.pass,
      cause: `${t.phasesMs ? `the app's own handlers took at most ${ms(t.phasesMs.app.max)} of a keystroke (median ${ms(t.phasesMs.app.median)}), the browser's insertion of the character up to ${ms(t.phasesMs.browser.max)}; ` : ''}the same typing in a bare textarea (the browser alone): max ${ms(t.bareTextareaHandledMs.max)}, ${t.bareTextareaHandledMs.overBudget} at or over; long tasks ${t.longTasksMs.length ? t.longTasksMs.join(', ') : 'none'}; ${load(t.loadAverage)}`,
    });
  } else missing(5, 'Editor route JS and typing latency', '< 80 KiB; < 16 ms', 'editor');

  const c = sections.callsApi;
  if (c) {
    for (const m of c.measures)
      add({
        issue: 6,
        what: `Call history API, ${fmt(c.calls)} calls: ${m.label}, p95 of ${m.requests}`,
        measured: `${ms(m.p95_ms)} (median ${ms(m.median_ms)})`,
        budget: `< ${ms(c.budget_p95_ms)}`,
        met: m.p95_ms < c.budget_p95_ms,
        cause: `median ${ms(m.median_ms)}; ${load(c.load_average)}`,
      });
    add({
      issue: 6,
      what: `Seed ${fmt(c.calls)} calls (npm run seed code, SQLite)`,
      measured: `${s1(c.seed_ms)} (${fmt(c.seed_calls_per_s)} calls/s)`,
      budget: '“within a few minutes”: ≤ 180 s',
      met: c.seed_ms <= 180_000,
      cause: load(c.load_average),
    });
  } else missing(6, 'Call history API p95 and seed time', '< 20 ms', 'callsApi');

  const p = sections.csvParse;
  if (p) {
    add({
      issue: 7,
      what: `Recipients CSV ${(p.file.bytes / 1e6).toFixed(1)} MB (${fmt(p.file.rows)} rows) parsed in the worker`,
      measured: `${s1(p.parse_ms)} (worker CPU ${s1(p.parse_worker_cpu_ms)})`,
      budget: `< ${s1(p.budget.parse_ms)}`,
      met: p.parse_ms < p.budget.parse_ms,
      cause: `worker CPU time ${ms(p.parse_worker_cpu_ms)}; load average ${p.load?.avg1} on ${p.load?.cpus} CPUs`,
    });
    add({
      issue: 7,
      what: 'Longest main-thread task while parsing (CPU time, Chromium trace)',
      measured: `${ms(p.longest_main_task_cpu_ms)} (Long Tasks API: ${p.long_tasks_over_50ms} over 50 ms; longest timer gap ${ms(p.longest_event_loop_gap_ms)})`,
      budget: `≤ ${ms(p.budget.task_ms)}`,
      met: p.within_budget_cpu ?? p.longest_main_task_cpu_ms <= p.budget.task_ms,
      cause: `load average ${p.load?.avg1} on ${p.load?.cpus} CPUs`,
    });
  } else missing(7, 'CSV parse', '< 5 s', 'csvParse');

  const l = sections.load;
  if (l) {
    const m = l.mix;
    add({
      issue: 8,
      what: `Load: ${m.connections} clients × ${m.duration_s} s on ${fmt(l.calls)} calls, errors (errors + timeouts + non-2xx)`,
      measured: `${m.errors + m.timeouts + m.non2xx} of ${fmt(m.requests)} (${fmt(m.throughput_rps)} req/s; p50 ${ms(m.latency_ms.p50)}, p95 ${ms(m.latency_ms.p95)}, p99 ${ms(m.latency_ms.p99)})`,
      budget: `${m.budget_errors}`,
      met: m.pass,
      cause: `answers per route: ${m.routes.map((r) => `${r.route} ${JSON.stringify(r.statuses)}`).join('; ')}`,
    });
    const f = l.flood;
    add({
      issue: 8,
      what: `Login flood (${f.login.connections} concurrent wrong passwords): other routes' p99`,
      measured: `${ms(f.other_routes_during.latency_ms.p99)} (alone: ${ms(f.other_routes_alone.latency_ms.p99)})`,
      budget: `≤ ${ms(f.budget_p99_ms)}`,
      met: f.pass,
      cause: `login answers ${JSON.stringify(f.login.routes[0]?.statuses ?? {})}; other routes ${fmt(f.other_routes_during.throughput_rps)} req/s during the flood vs ${fmt(f.other_routes_alone.throughput_rps)} alone; ${load(l.load_average)} on ${l.cpus} CPUs`,
    });
  } else missing(8, 'Load run', 'errors 0; flood p99 ≤ 250 ms', 'load');

  const h = sections.lighthouse;
  if (h) {
    const lm = h.landing.median;
    const why = (m) =>
      `FCP ${ms(m.fcpMs)}, SI ${ms(m.speedIndexMs)}; LCP phases ${Object.entries(m.lcpPhases ?? {})
        .map(([k, v]) => `${k} ${ms(v)}`)
        .join(', ')}; main-thread work ${ms(m.mainThreadMs)}, JS boot-up ${ms(m.bootupMs)} (most: ${(m.topScripts ?? [])
        .map((t) => `${t.url} ${ms(t.totalMs)}`)
        .join(
          ', ',
        )}); transfer ${kib(m.transferBytes)}; Lighthouse's benchmarkIndex of this machine ${m.benchmarkIndex ?? 'n/a'}; ${load(h.load_average)} (simulated throttling multiplies the CPU time it observes by 4, so a busy machine inflates LCP and TBT)`;
    add({
      issue: 8,
      what: `Lighthouse landing, performance (median of ${h.runs}: ${h.landing.runs.join(', ')})`,
      measured: String(lm.performance),
      budget: `≥ ${h.landing.budgets.performance}`,
      met: h.landing.pass.performance,
      cause: why(lm),
    });
    add({
      issue: 8,
      what: 'Lighthouse landing, LCP',
      measured: ms(lm.lcpMs),
      budget: `< ${ms(h.landing.budgets.lcpMs)}`,
      met: h.landing.pass.lcp,
      cause: why(lm),
    });
    add({
      issue: 8,
      what: 'Lighthouse landing, TBT',
      measured: ms(lm.tbtMs),
      budget: `< ${ms(h.landing.budgets.tbtMs)}`,
      met: h.landing.pass.tbt,
      cause: why(lm),
    });
    const dm = h.dashboard.median;
    add({
      issue: 8,
      what: `Lighthouse dashboard after login, performance (median of ${h.runs}: ${h.dashboard.runs.join(', ')})`,
      measured: `${dm.performance} (LCP ${ms(dm.lcpMs)}, TBT ${ms(dm.tbtMs)})`,
      budget: `≥ ${h.dashboard.budgets.performance}`,
      met: h.dashboard.pass.performance,
      cause: `${why(dm)}${
        h.floor
          ? `. The stack's floor on the same setting: /privacy, static text rendered by the same app with no data and no Ariakit, scores ${h.floor.median.performance} (runs ${h.floor.runs.join(', ')}; FCP ${ms(h.floor.median.fcpMs)}, LCP ${ms(h.floor.median.lcpMs)}, TBT ${ms(h.floor.median.tbtMs)})`
          : ''
      }`,
    });
  } else missing(8, 'Lighthouse', '≥ 98 / ≥ 95', 'lighthouse');

  const hu = sections.hostileUploads;
  if (hu)
    add({
      issue: 16,
      what: `Hostile uploads (${hu.documents.length} knowledge-base documents, ${hu.during_s} s): GET /health p99 while they upload and are read`,
      measured: `${ms(hu.health_during_ms.p99)} (p50 ${ms(hu.health_during_ms.p50)}, max ${ms(hu.health_during_ms.max)}; the server's own event-loop delay p99 ${ms(hu.server_event_loop.p99_ms)}, max ${ms(hu.server_event_loop.max_ms)})`,
      budget: `≤ ${ms(hu.budget_p99_ms)}`,
      met: hu.pass,
      cause: `before the uploads: p99 ${ms(hu.health_baseline_ms.p99)}, max ${ms(hu.health_baseline_ms.max)}; ${load(hu.load_average)} on ${hu.cpus} CPUs`,
    });
  else missing(16, 'Hostile uploads: /health p99', '≤ 50 ms', 'hostileUploads');

  const ce = sections.callEngine;
  if (ce) {
    const one = ce.runs['1'];
    const many = ce.runs[String(ce.concurrent)];
    const b = ce.budgets;
    const ctx = `${load(ce.load_average)}${ce.cpus ? ` on ${ce.cpus} CPUs` : ''}`;
    if (one)
      add({
        issue: 18,
        what: 'Call engine, 1 web call: caller’s last frame → agent’s first frame, minus the end-of-turn wait (p95)',
        measured: `${ms(one.turn_overhead_p95_ms)} (p50 ${ms(one.turn_overhead_p50_ms)}, ${one.turns} turns)`,
        budget: `≤ ${ms(b.turn_p95_1)}`,
        met: one.turn_overhead_p95_ms <= b.turn_p95_1,
        cause: ctx,
      });
    if (many)
      add({
        issue: 18,
        what: `Call engine, ${ce.concurrent} simultaneous web calls: turn overhead (p95)`,
        measured: `${ms(many.turn_overhead_p95_ms)} (p50 ${ms(many.turn_overhead_p50_ms)}, ${many.turns} turns; event loop p99 ${ms(many.event_loop_p99_ms)})`,
        budget: `≤ ${ms(b.turn_p95_n)}`,
        met: many.turn_overhead_p95_ms <= b.turn_p95_n,
        cause: ctx,
      });
    const runs = [one, many].filter(Boolean);
    const worst = (key) => Math.max(...runs.map((r) => r[key] ?? Number.POSITIVE_INFINITY));
    add({
      issue: 18,
      what: 'Call engine: greeting, line open → agent’s first audio (p95, worst run)',
      measured: ms(worst('greeting_p95_ms')),
      budget: `≤ ${ms(b.greeting_p95)}`,
      met: worst('greeting_p95_ms') <= b.greeting_p95,
      cause: ctx,
    });
    add({
      issue: 18,
      what: 'Call engine: barge-in, speech started → clear sent (p95, worst run)',
      measured: ms(worst('barge_in_p95_ms')),
      budget: `≤ ${ms(b.barge_in_p95)}`,
      met: worst('barge_in_p95_ms') <= b.barge_in_p95,
      cause: ctx,
    });
  } else missing(18, 'Call engine: turn overhead, greeting, barge-in', 'p95 ≤ 50 / 100 / 100 / 20 ms', 'callEngine');

  const tl = sections.tools;
  if (tl) {
    const ctx = `${load(tl.load_average)}${tl.cpus ? ` on ${tl.cpus} CPUs` : ''}`;
    for (const r of Object.values(tl.runs)) {
      const who = r.calls === 1 ? '1 web call' : `${fmt(r.calls)} simultaneous web calls`;
      const why = `${ctx}; the server's event-loop delay p99 ${ms(r.server_event_loop.p99_ms_at_end)} (highest reported ${ms(r.server_event_loop.highest_p99_ms)}), the bench's callers' thread ${ms(r.fakes_event_loop_p99_ms)}${r.model_thread_event_loop_p99_ms === undefined ? '' : `, its model's thread ${ms(r.model_thread_event_loop_p99_ms)}`}`;
      add({
        issue: 26,
        what: `Tool turn, ${who}: the model's tool call sent → the company's API received the request (p95 of ${fmt(r.tool_turns)})`,
        measured: `${ms(r.to_tool_ms.p95)} (p50 ${ms(r.to_tool_ms.p50)}, max ${ms(r.to_tool_ms.max)}; from the end of the model's stream ${ms(r.stream_end_to_tool_ms.p95)})`,
        budget: `≤ ${ms(tl.budget_p95_ms)}`,
        met: r.tool_turns > 0 && r.incomplete_turns === 0 && r.to_tool_ms.p95 <= tl.budget_p95_ms,
        cause: why,
      });
      add({
        issue: 26,
        what: `Tool turn, ${who}: the API's answer sent → the model's continuation requested (p95 of ${fmt(r.tool_turns)})`,
        measured: `${ms(r.back_to_model_ms.p95)} (p50 ${ms(r.back_to_model_ms.p50)}, max ${ms(r.back_to_model_ms.max)})`,
        budget: `≤ ${ms(tl.budget_p95_ms)}`,
        met: r.tool_turns > 0 && r.incomplete_turns === 0 && r.back_to_model_ms.p95 <= tl.budget_p95_ms,
        cause: why,
      });
    }
  } else missing(26, 'Tool turn: tool call → request sent, answer → continuation', 'p95 ≤ 20 ms', 'tools');

  const vf = sections.voiceFlood;
  if (vf)
    add({
      issue: 24,
      what: `Voice surfaces under attack (${vf.flood?.calls ?? vf.flooded_calls.length} flooded web calls and ${vf.drip.chats} dripped SSE chats from two tenants, ${vf.attack_s} s): GET /health p99`,
      measured: `${ms(vf.health_during_ms.p99)} (p50 ${ms(vf.health_during_ms.p50)}, max ${ms(vf.health_during_ms.max)}, ${fmt(vf.health_errors)} failed; the server's own event-loop delay p99 ${ms(vf.server_event_loop.p99_ms)}, max ${ms(vf.server_event_loop.max_ms)})`,
      budget: `≤ ${ms(vf.budget_p99_ms)}`,
      met: vf.pass,
      cause: `before the attack: p99 ${ms(vf.health_baseline_ms.p99)}; ${load(vf.load_average)} on ${vf.cpus} CPUs`,
    });
  else missing(24, 'Voice surfaces under attack: /health p99', '≤ 50 ms', 'voiceFlood');

  const pc = sections.phoneCalls;
  if (pc) {
    const many = pc.runs[String(pc.concurrent)];
    const ctx = `${load(pc.load_average)}${pc.cpus ? ` on ${pc.cpus} CPUs` : ''}`;
    if (many) {
      add({
        issue: 19,
        what: `Phone, ${pc.concurrent} simultaneous calls through the fake Twilio media stream: caller’s last frame → agent’s first frame, minus the end-of-turn wait (p95)`,
        measured: `${ms(many.turn_overhead_p95_ms)} (p50 ${ms(many.turn_overhead_p50_ms)}, ${many.turns} turns; event loop p99 ${ms(many.event_loop_p99_ms)})`,
        budget: `≤ ${ms(pc.budgets.turn_p95_ms)}`,
        met: many.turn_overhead_p95_ms <= pc.budgets.turn_p95_ms,
        cause: `${ctx}; the server used ${ms(many.server_cpu_ms_per_call_s)} of CPU per call-second and had ${many.server_cpu_share_of_core} of a core`,
      });
      add({
        issue: 19,
        what: `Phone, ${pc.concurrent} simultaneous calls: agent frames sent late by more than ${ms(pc.budgets.late_by_ms)}`,
        measured: `${fmt(many.late_frames)} of ${fmt(many.agent_frames)} (latest ${ms(many.max_late_ms)} after due)`,
        budget: 'none',
        met: many.late_frames <= pc.budgets.late_frames,
        cause: `${ctx}; the fakes' own event loop p99 ${ms(many.fakes_event_loop_p99_ms)} (a delay there makes frames look late)`,
      });
    }
  } else missing(19, 'Phone: 50 calls, turn overhead and late frames', 'p95 ≤ 100 ms; none late', 'phoneCalls');

  const bd = sections.batchDial;
  if (bd)
    add({
      issue: 19,
      what: `Batch of ${fmt(bd.recipients)} recipients at ${bd.concurrency_limit} concurrent, ${bd.dials_per_second_configured} new calls / s configured: pace, limit, no double dial`,
      measured: `${bd.wall_s} s wall; at most ${fmt(bd.max_dials_in_1s)} dials in any 1 s (gap mean ${ms(bd.mean_gap_ms)}), at most ${fmt(bd.max_live_calls)} live, ${fmt(bd.numbers_dialled_twice)} numbers dialled twice`,
      budget: `≤ ${bd.dials_per_second_configured} in 1 s, ≤ ${bd.concurrency_limit} live, none twice`,
      met:
        bd.max_dials_in_1s <= bd.dials_per_second_configured &&
        bd.max_live_calls <= bd.concurrency_limit &&
        bd.numbers_dialled_twice === 0,
      cause: `${load(bd.load_average)} on ${bd.cpus} CPUs`,
    });
  else missing(19, 'Batch of 1,000: wall time and dial pacing', '', 'batchDial');

  const mu = sections.mutation;
  if (mu) {
    const partial = mu.scope !== 'all';
    for (const t of mu.targeted ?? [])
      add({
        issue: 17,
        what: `Mutation score of the ${t.machine} machine (Stryker over src/machines/${t.machine}.machine.ts)`,
        measured: t.score === null ? 'not in this run' : `${t.score}%`,
        budget: `≥ ${mu.targetEach}%`,
        met: t.met === null ? undefined : t.met,
      });
    add({
      issue: 17,
      what: partial
        ? `Mutation score over the machines of a partial run (${mu.files.length} files; the full run over src/machines is \`npm run mutation\`)`
        : `Mutation score over src/machines (${mu.files.length} files)`,
      measured: `${mu.overall}%`,
      budget: `≥ ${mu.targetOverall}%${partial ? ' (over all of src/machines)' : ''}`,
      met: partial ? undefined : mu.overall >= mu.targetOverall,
    });
  } else missing(17, 'Mutation score of the machines', '≥ 85% each of seven, ≥ 75% overall', 'mutation');
  return rows;
}

const mark = (met) => (met === undefined ? '–' : met ? '✅ met' : '❌ missed');

function table(head, rows) {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

export function renderReport(results) {
  const s = results.sections;
  const rows = budgetRows(s);
  const missed = rows.filter((r) => r.met === false);
  const out = [];
  /** each part as its own paragraph (a blank line after it) */
  const block = (...parts) => {
    for (const part of parts) out.push(part, '');
  };
  block('# Parley benchmark report');
  out.push(
    `Generated by \`npm run bench\`${QUICK ? ' **--quick** (fewer rows, shorter phases, fewer runs: for development, not the reference figures)' : ''} from \`bench/${path.basename(RESULTS_FILE)}\` (last written ${results.generatedAt ?? 'never'}). Everything runs on this machine over loopback; each section notes the machine load it saw.`,
  );
  out.push('');
  out.push(
    `**${rows.filter((r) => r.met).length} of ${rows.length} budgets met${missed.length ? `, ${missed.length} missed` : ''}${rows.some((r) => r.met === undefined) ? `, ${rows.filter((r) => r.met === undefined).length} not measured` : ''}.**`,
  );
  out.push('');
  block('## Budgets');
  out.push(
    table(
      ['Issue', 'Figure', 'Measured', 'Budget', ''],
      rows.map((r) => [`#${r.issue}`, r.what, r.measured, r.budget, mark(r.met)]),
    ),
  );
  out.push('');
  if (missed.length) {
    block('## Missed budgets: the measurements behind them');
    for (const r of missed) out.push(`- **${r.what}**: ${r.measured} against ${r.budget}. ${r.cause ?? ''}`);
    out.push('');
  }

  // what profiles and query plans showed, written by hand (bench/analysis.md), after the measured budgets
  const analysis = path.resolve(import.meta.dirname, 'analysis.md');
  if (fs.existsSync(analysis)) block(fs.readFileSync(analysis, 'utf8').trim());

  if (s.bundle) {
    const b = s.bundle;
    block('## JS and CSS per route (gzip level 9)');
    out.push(
      'Own chunks of each route, and its first load (the entry, its layouts, its own chunks and their static imports). The entry with what index.html preloads (the landing route): ' +
        `JS ${kib(b.entry.js.gzip)}, CSS ${kib(b.entry.css.gzip)}.`,
    );
    out.push('');
    out.push(
      table(
        ['Route', 'File', 'Own JS', 'Own CSS', 'First-load JS', 'First-load CSS'],
        b.routes.map((r) => [
          r.route,
          r.file,
          kib(r.js.gzip),
          kib(r.css.gzip),
          kib(r.firstLoad.js.gzip),
          kib(r.firstLoad.css.gzip),
        ]),
      ),
    );
    out.push('');
    if (b.lazyChunks?.length) {
      block('Loaded on demand (beyond the entry):');
      out.push(
        table(
          ['Chunk', 'JS', 'CSS'],
          b.lazyChunks.map((c) => [c.name, kib(c.js.gzip), kib(c.css.gzip)]),
        ),
      );
      out.push('');
    }
  }

  const api = (title, sec, extra) => {
    block(`## ${title}`);
    if (extra) out.push(extra, '');
    out.push(
      table(
        ['Request', 'Rows matching', 'Median', 'p95', 'Budget p95'],
        [
          ...sec.measures.map((m) => [m.label, fmt(m.total), ms(m.median_ms), ms(m.p95_ms), `< ${ms(sec.budget_p95_ms)}`]),
          ...(sec.unbudgeted ?? []).map((m) => [m.label, fmt(m.total), ms(m.median_ms), ms(m.p95_ms), 'reported only']),
        ],
      ),
    );
    out.push('');
  };
  if (s.agentsApi)
    api(
      `Agents API: ${fmt(s.agentsApi.agents)} agents of one company (SQLite, through the app)`,
      s.agentsApi,
      `Seeded in ${ms(s.agentsApi.seed_ms)}.`,
    );
  if (s.callsApi)
    api(
      `Call history API: ${fmt(s.callsApi.calls)} calls of one company (SQLite, through the app)`,
      s.callsApi,
      `Seeded by the \`npm run seed\` code in ${s1(s.callsApi.seed_ms)} (${fmt(s.callsApi.seed_calls_per_s)} calls/s); ${load(s.callsApi.load_average)}.`,
    );

  for (const [key, where] of [
    ['callAnalytics', 'SQLite'],
    ['callAnalyticsPg', 'PostgreSQL'],
  ]) {
    const a = s[key];
    if (!a) continue;
    api(
      `Call analytics: the Call History overview of ${fmt(a.calls)} calls of one company (${where}, through the app)`,
      a,
      `GET /call/analytics: per-day calls by status, success rate, average duration, cost and latency p50/p95, from the daily rollups of migration 016 (a search is answered from the calls). Seeded in ${s1(a.seed_ms)}; ${load(a.load_average)}. Budget: the 90-day overview in p95 <= ${ms(a.budget_p95_ms)}: ${a.within_budget ? 'met' : '**missed**'}.`,
    );
  }

  if (s.callExport) {
    const e = s.callExport;
    block(`## Call History export: ${fmt(e.rows)} calls as CSV (SQLite, through the app)`);
    out.push(
      `${fmt(e.rows)} rows (${(e.bytes / 1024 / 1024).toFixed(1)} MB) streamed in ${e.seconds} s: **${fmt(e.rows_per_s)} rows/s**, first byte after ${ms(e.first_byte_ms)}. ` +
        `Memory while streaming: RSS ${e.baseline_rss_mb} MB before, peak ${e.peak_rss_mb} MB; heap ${e.baseline_heap_mb} MB before, peak ${e.peak_heap_mb} MB (one batch of 1,000 rows at a time); ${load(e.load_average)}.`,
      '',
    );
  }
  if (s.load) {
    const l = s.load;
    const lat = (p) => [ms(p.p50), ms(p.p95), ms(p.p99), ms(p.max)];
    out.push(`## Load: \`npm start\` on ${fmt(l.calls)} calls, autocannon over loopback`);
    out.push('');
    out.push(`${l.what}. Seeded in ${s1(l.seed_ms)}; ${load(l.load_average)} on ${l.cpus} CPUs.`);
    out.push('');
    out.push(
      `The mix: ${fmt(l.mix.requests)} requests in ${l.mix.duration_s} s, **${fmt(l.mix.throughput_rps)} req/s**, errors ${l.mix.errors}, timeouts ${l.mix.timeouts}, non-2xx ${l.mix.non2xx}.`,
    );
    out.push('');
    out.push(
      table(
        ['Route', 'Requests', 'p50', 'p95', 'p99', 'max', 'Answers'],
        [
          ['**all**', fmt(l.mix.requests), ...lat(l.mix.latency_ms), ''],
          ...l.mix.routes.map((r) => [r.route, fmt(r.requests), ...lat(r.latency_ms), JSON.stringify(r.statuses)]),
        ],
      ),
    );
    out.push('');
    const f = l.flood;
    out.push(
      `Login flood: ${f.login.connections} connections sending wrong passwords (a new email each time) for ${f.login.duration_s} s: ${fmt(f.login.requests)} answers ${JSON.stringify(f.login.routes[0]?.statuses ?? {})}. ` +
        'The server counts failed logins per IP (50 per 15 minutes) and per IP and email (5), refuses an IP over its limit before parsing or hashing anything, answers refused logins after a 1 s tarpit, and runs at most one argon2 computation per spare core (a queue of 100, then 503).',
    );
    out.push('');
    out.push(
      table(
        ['Other routes (the mix)', 'Clients', 'req/s', 'p50', 'p95', 'p99', 'max'],
        [
          [
            'alone',
            f.other_routes_alone.connections,
            fmt(f.other_routes_alone.throughput_rps),
            ...lat(f.other_routes_alone.latency_ms),
          ],
          [
            'during the flood',
            f.other_routes_during.connections,
            fmt(f.other_routes_during.throughput_rps),
            ...lat(f.other_routes_during.latency_ms),
          ],
        ],
      ),
    );
    out.push('');
  }

  if (s.callEngine) {
    const ce = s.callEngine;
    block('## Call engine: Parley’s own overhead in a live call');
    out.push(
      `${ce.what}. Configured waits: endpointing ${ms(ce.configured_waits_ms.endpointing)}, end of turn ${ms(ce.configured_waits_ms.end_of_turn)} (subtracted from the turn figures). ${load(ce.load_average)}`,
    );
    out.push('');
    out.push(
      table(
        [
          'Calls',
          'Turns',
          'Turn overhead p50 / p95',
          'After the final transcript p95',
          'Greeting p50 / p95',
          'Barge-in p50 / p95',
          'Late frames',
          'RSS per call',
          'Event loop p99',
        ],
        Object.values(ce.runs).map((r) => [
          fmt(r.calls),
          fmt(r.turns),
          `${ms(r.turn_overhead_p50_ms)} / ${ms(r.turn_overhead_p95_ms)}`,
          ms(r.after_final_p95_ms),
          `${ms(r.greeting_p50_ms)} / ${ms(r.greeting_p95_ms)}`,
          `${ms(r.barge_in_p50_ms)} / ${ms(r.barge_in_p95_ms)} (${r.barge_ins})`,
          `${fmt(r.late_frames)} of ${fmt(r.agent_frames)}`,
          `${fmt(r.rss_growth_per_call_kib)} KiB`,
          ms(r.event_loop_p99_ms),
        ]),
      ),
    );
    out.push('');
  }

  if (s.tools) {
    const tl = s.tools;
    const spread = (p) => `${ms(p.p50)} / ${ms(p.p95)} / ${ms(p.max)}`;
    block('## Functions: a tool turn’s added latency');
    out.push(
      `${tl.what}. Each caller turn the OpenAI fake answers with a call of the function and nothing else; given its result, with a short sentence. Timed in the fakes’ process: the OpenAI fake wrote the first \`tool_calls\` chunk → the company’s API fake received the request (the engine runs a round of functions once the model’s stream has ended, so this includes the rest of the stream: the arguments, the finish chunk, usage and \`[DONE]\`; the part after \`[DONE]\` is shown apart), and the API fake answered → the OpenAI fake received the continuation request with the tool message. Every request to the API carried a valid X-Parley-Signature (${fmt(tl.api_requests)} requests). The server’s event-loop delay is its own /health figure over its last minute, read when the calls ended and the highest read each second while they ran. ${load(tl.load_average)}${tl.cpus ? ` on ${tl.cpus} CPUs` : ''}: other work shared the machine.`,
    );
    out.push('');
    out.push(
      table(
        [
          'Calls',
          'Tool turns (incomplete)',
          'Tool call → API request p50 / p95 / max',
          'Stream end → API request p50 / p95 / max',
          'API answer → continuation p50 / p95 / max',
          'Server event loop p99 (highest)',
          'Bench event loop p99: callers’ / model’s thread',
          'Load (1 min)',
        ],
        Object.values(tl.runs).map((r) => [
          `${fmt(r.calls)} × ${fmt(r.turns_per_call)} turns`,
          `${fmt(r.tool_turns)} (${fmt(r.incomplete_turns)})`,
          spread(r.to_tool_ms),
          spread(r.stream_end_to_tool_ms),
          spread(r.back_to_model_ms),
          `${ms(r.server_event_loop.p99_ms_at_end)} (${ms(r.server_event_loop.highest_p99_ms)})`,
          `${ms(r.fakes_event_loop_p99_ms)} / ${r.model_thread_event_loop_p99_ms === undefined ? '–' : ms(r.model_thread_event_loop_p99_ms)}`,
          String(r.load_1min),
        ]),
      ),
    );
    out.push('');
    block(
      'Where the time goes (traced runs, in the analysis above under “Functions”): with 50 calls most of it passes between the fake’s `[DONE]` and the engine leaving the model’s stream, which is read one chunk per turn of a busy event loop; the engine’s own work from there to the request is about a millisecond.',
    );
  }

  if (s.redaction) {
    const r = s.redaction;
    const pct = (x) => (x === null ? '—' : `${(x * 100).toFixed(1)} %`);
    block('## Redaction: personal data in call text (the “Everything but personal data” level)');
    out.push(
      `${r.what}. Per line and marker, true positives are the smaller of the labels and the markers of that type; precision = TP / markers produced, recall = TP / labels. ${fmt(r.leaked_values)} of ${fmt(r.labelled)} labelled values survived word for word; ${fmt(r.clean_lines_changed)} of ${fmt(r.clean_lines)} lines without personal data were changed; ${fmt(r.exact_lines)} of ${fmt(r.lines)} lines came out exactly as labelled. A ${fmt(r.long_text_chars)}-character text (the most one text is scanned for) takes ${ms(r.long_text_ms_median)} (median of 10).`,
    );
    out.push('');
    out.push(
      table(
        ['Marker', 'Labels', 'Produced', 'Precision', 'Recall'],
        [
          ...Object.entries(r.per_marker).map(([t, c]) => [
            `[${t}]`,
            fmt(c.expected),
            fmt(c.produced),
            pct(c.precision),
            pct(c.recall),
          ]),
          ['All', fmt(r.overall.expected), fmt(r.overall.produced), pct(r.overall.precision), pct(r.overall.recall)],
        ],
      ),
    );
    out.push('');
  }

  if (s.phoneCalls) {
    const pc = s.phoneCalls;
    block('## Phone calls: Parley’s overhead on the fake Twilio media stream');
    out.push(
      `${pc.what}. Configured waits: endpointing ${ms(pc.configured_waits_ms.endpointing)}, end of turn ${ms(pc.configured_waits_ms.end_of_turn)} (subtracted from the turn figures). A frame is late when it arrives more than ${ms(pc.budgets.late_by_ms)} after its audio is due to play. ${load(pc.load_average)}`,
    );
    out.push('');
    out.push(
      table(
        [
          'Calls',
          'Turns',
          'Turn overhead p50 / p95 / max',
          'Late frames',
          'Latest frame',
          'Event loop p99 (server / fakes)',
          'Server CPU per call-second',
          'Server’s share of a core',
        ],
        Object.values(pc.runs).map((r) => [
          fmt(r.calls),
          fmt(r.turns),
          `${ms(r.turn_overhead_p50_ms)} / ${ms(r.turn_overhead_p95_ms)} / ${ms(r.turn_overhead_max_ms)}`,
          `${fmt(r.late_frames)} of ${fmt(r.agent_frames)}`,
          ms(r.max_late_ms),
          `${ms(r.event_loop_p99_ms)} / ${ms(r.fakes_event_loop_p99_ms)}`,
          ms(r.server_cpu_ms_per_call_s),
          String(r.server_cpu_share_of_core),
        ]),
      ),
    );
    out.push('');
    if (pc.repeats?.length > 1) {
      out.push(
        `The ${fmt(pc.concurrent)} simultaneous calls ran ${pc.repeats.length} times, one after another; the table and the budget rows show the median run (by turn overhead p95). Each run: ${pc.repeats
          .map(
            (r) =>
              `p95 ${ms(r.turn_overhead_p95_ms)}, ${fmt(r.late_frames)} of ${fmt(r.agent_frames)} frames late, server event loop p99 ${ms(r.event_loop_p99_ms)}, ${r.server_cpu_share_of_core} of a core, load ${r.load_1min}`,
          )
          .join('; ')}.`,
      );
      out.push('');
    }
  }

  if (s.batchDial) {
    const bd = s.batchDial;
    block('## Batch calls: a batch of recipients through the dispatcher');
    out.push(`${bd.what}. ${load(bd.load_average)} on ${bd.cpus} CPUs.`);
    out.push('');
    out.push(
      table(
        [
          'Recipients',
          'Concurrency limit',
          'Pace configured',
          'Call length',
          'Wall time',
          'Dials (numbers twice)',
          'Most dials in 1 s',
          'Gap mean / min',
          'Most live calls',
          'Outcomes',
        ],
        [
          [
            fmt(bd.recipients),
            fmt(bd.concurrency_limit),
            `${fmt(bd.dials_per_second_configured)} / s`,
            ms(bd.call_ms),
            `${bd.wall_s} s (${bd.dials_per_s} dials / s)`,
            `${fmt(bd.dials)} (${fmt(bd.numbers_dialled_twice)})`,
            fmt(bd.max_dials_in_1s),
            `${ms(bd.mean_gap_ms)} / ${ms(bd.min_gap_ms)}`,
            fmt(bd.max_live_calls),
            Object.entries(bd.outcomes)
              .map(([k, v]) => `${k} ${fmt(v)}`)
              .join(', '),
          ],
        ],
      ),
    );
    out.push('');
    out.push(
      `At the server's default pace (1 new call a second per company) the same batch takes at least ${fmt(bd.recipients)} s.`,
    );
    out.push('');
  }

  if (s.hostileUploads) {
    const hu = s.hostileUploads;
    const lat = (p) => [fmt(p.requests), ms(p.p50), ms(p.p95), ms(p.p99), ms(p.max)];
    block('## Hostile uploads: the event loop while tenants upload attacks');
    out.push(`${hu.what}. ${load(hu.load_average)} on ${hu.cpus} CPUs.`);
    out.push('');
    out.push(
      table(
        ['Document', 'What', 'Size', 'Ended', 'After its upload (read one at a time)', 'Reason'],
        hu.documents.map((d) => [d.name, d.what, kib(d.bytes), d.status, `${d.seconds} s`, d.error_message ?? '']),
      ),
    );
    out.push('');
    out.push(
      table(
        ['Requests', 'Count', 'p50', 'p95', 'p99', 'max'],
        [
          ['GET /health before the uploads', ...lat(hu.health_baseline_ms)],
          ['GET /health during', ...lat(hu.health_during_ms)],
          ['GET /knowledge-base during', ...lat(hu.list_during_ms)],
        ],
      ),
    );
    out.push('');
    out.push(
      `The server's event-loop delay as /health reports it (over its last minute), the highest of ${fmt(hu.server_event_loop.samples)} reports during the run: p99 ${ms(hu.server_event_loop.p99_ms)}, max ${ms(hu.server_event_loop.max_ms)}.`,
    );
    out.push('');
  }

  if (s.voiceFlood) {
    const vf = s.voiceFlood;
    const lat = (p) => [fmt(p.requests), ms(p.p50), ms(p.p95), ms(p.p99), ms(p.max)];
    block('## Voice surfaces under attack: audio floods and dripped provider streams');
    out.push(`${vf.what}. ${load(vf.load_average)} on ${vf.cpus} CPUs.`);
    out.push('');
    out.push(
      table(
        ['Requests', 'Count', 'p50', 'p95', 'p99', 'max'],
        [
          ['GET /health before the attack', ...lat(vf.health_baseline_ms)],
          ['GET /health during', ...lat(vf.health_during_ms)],
        ],
      ),
    );
    out.push('');
    const mib = (n) => (n === null || n === undefined ? '—' : `${(n / 1024 / 1024).toFixed(2)} MiB`);
    out.push(
      table(
        ['Flooded call', 'Sent', 'Open', 'Recording', 'Billed STT', 'Call duration', 'Ended'],
        vf.flooded_calls.map((c) => [
          c.call_id,
          mib(c.sent_bytes),
          `${c.seconds_open} s`,
          mib(c.recording_bytes),
          c.billed_stt_seconds === null ? '—' : `${c.billed_stt_seconds} s`,
          c.duration_s === null ? '—' : `${c.duration_s} s`,
          c.disconnection_reason ?? c.ended_reason ?? '',
        ]),
      ),
    );
    out.push('');
    if (vf.flood)
      out.push(
        `Every flooded call (${fmt(vf.flood.calls)}, the first ${vf.flooded_calls.length} above): ${mib(vf.flood.sent_bytes)} sent in all; the largest recording ${mib(vf.flood.max_recording_bytes)}; the most STT seconds billed ${vf.flood.max_billed_stt_seconds} s (the longest call ${vf.flood.max_duration_s} s); how they ended: ${Object.entries(
          vf.flood.reasons,
        )
          .map(([reason, n]) => `${reason} ${fmt(n)}`)
          .join(', ')}${vf.flood.refused.length ? `; new calls refused: ${vf.flood.refused.join(' | ')}` : ''}.`,
        '',
      );
    out.push(
      `The server's event-loop delay as /health reports it, the highest of ${fmt(vf.server_event_loop.samples)} reports during the attack: p99 ${ms(vf.server_event_loop.p99_ms)}, max ${ms(vf.server_event_loop.max_ms)}. Dripped chats: ${fmt(vf.drip.messages_answered)} messages answered; what they said: ${vf.drip.errors.join(' | ') || 'no error'}.`,
    );
    out.push('');
  }

  if (s.lighthouse) {
    const h = s.lighthouse;
    block(`## Lighthouse (${h.setting}; median of ${h.runs})`);
    const row = (name, p) => [
      name,
      p.median.performance,
      p.runs.join(', '),
      ms(p.median.fcpMs),
      ms(p.median.lcpMs),
      ms(p.median.tbtMs),
      p.median.cls,
      ms(p.median.speedIndexMs),
      ms(p.median.mainThreadMs),
    ];
    out.push(
      table(
        ['Page', 'Performance', 'Runs', 'FCP', 'LCP', 'TBT', 'CLS', 'Speed Index', 'Main-thread work'],
        [
          row('landing /', h.landing),
          row('dashboard after login', h.dashboard),
          ...(h.floor ? [row('/privacy (static text: the floor)', h.floor)] : []),
        ],
      ),
    );
    out.push('');
    out.push(`${load(h.load_average)}.`);
    out.push('');
  }

  if (s.editor) {
    const t = s.editor.typing;
    block('## Agent editor');
    out.push(`${t.what}. ${load(t.loadAverage)}.`);
    out.push('');
    out.push(
      table(
        ['', 'Median', 'p95', 'Max', 'At or over 16 ms'],
        [
          ['the editor', ms(t.handledMs.median), ms(t.handledMs.p95), ms(t.handledMs.max), `${t.overBudget} of ${t.keystrokes}`],
          [
            'a bare textarea (the browser alone)',
            ms(t.bareTextareaHandledMs.median),
            ms(t.bareTextareaHandledMs.p95),
            ms(t.bareTextareaHandledMs.max),
            String(t.bareTextareaHandledMs.overBudget),
          ],
        ],
      ),
    );
    out.push('');
    if (t.phasesMs) {
      const spread = (x) => `${ms(x.median)} / ${ms(x.p95)} / ${ms(x.max)}`;
      out.push(
        "Where each keystroke's time went (median / p95 / max): the wait before its keydown was dispatched, the page's own handlers of its events (React's and the editor machine's work), and the browser's work between them (inserting the character into the textarea and laying it out).",
      );
      out.push('');
      out.push(
        table(
          ['', 'Waiting', "The browser's insertion", "The page's handlers"],
          [
            ['the editor', spread(t.phasesMs.queue), spread(t.phasesMs.browser), spread(t.phasesMs.app)],
            [
              'a bare textarea (the browser alone)',
              spread(t.bareTextareaPhasesMs.queue),
              spread(t.bareTextareaPhasesMs.browser),
              spread(t.bareTextareaPhasesMs.app),
            ],
          ],
        ),
      );
      out.push('');
    }
  }

  if (s.mutation) {
    const mu = s.mutation;
    block('## Mutation testing of the machines');
    out.push(
      `${mu.what}; ${mu.scope === 'all' ? 'every file of src/machines' : `a partial run over ${mu.scope.length} files`}, ${mu.durationS === null ? 'duration not recorded' : `${fmt(mu.durationS)} s`} on ${mu.cpus} CPUs (${load(mu.loadAverage)} at the start). Score = killed (and timed out) / (killed + timed out + survived + not covered); transition and state descriptions are not mutated (scripts/lib/stryker-ignore-descriptions.mjs). "At load": mutants that make the module throw on import, which Stryker's vitest runner reports as survivors with no test run; bench/mutation.ts imports each and counts those that throw as killed. How the walks and invariants work: docs/testing.md.`,
    );
    out.push('');
    out.push(
      table(
        ['Machine', 'Score', 'Killed (at load)', 'Survived', 'Not covered', 'Target', 'Measured'],
        mu.files.map((f) => [
          f.machine,
          `${f.score}%`,
          `${f.killed} (${f.killedAtLoad ?? 0})`,
          String(f.survived),
          String(f.noCoverage),
          (mu.targeted ?? []).some((t) => t.machine === f.machine) ? `≥ ${mu.targetEach}%` : '',
          mu.measuredAt?.[f.machine] ?? '',
        ]),
      ),
    );
    out.push('');
    const notMeasured = (mu.targeted ?? []).filter((t) => t.score === null).map((t) => t.machine);
    if (mu.scope !== 'all')
      block(
        `Not every machine was measured: ${mu.files.length} files here${notMeasured.length ? `; of the seven targeted, not measured: ${notMeasured.join(', ')}` : ''}. A run over all of src/machines is \`npm run mutation\`.`,
      );
    const equivalent = (mu.survivors ?? []).filter((x) => x.equivalent);
    if (equivalent.length) {
      block('Survivors judged equivalent (no test can tell them from the original):');
      out.push(
        table(
          ['Machine', 'Line', 'Mutation', 'Why it is equivalent'],
          equivalent.map((x) => [x.machine, String(x.line), `${x.original} → ${x.replacement}`, x.equivalent]),
        ),
      );
      out.push('');
    }
  }

  if (s.csvParse) {
    const p = s.csvParse;
    block('## Recipients CSV in the browser');
    out.push(
      `${(p.file.bytes / 1e6).toFixed(1)} MB, ${p.summary}: parsed in ${s1(p.parse_ms)} (counts shown after ${s1(p.until_counts_shown_ms)}), worker CPU ${s1(p.parse_worker_cpu_ms)}; longest main-thread task ${ms(p.longest_main_task_cpu_ms)} CPU; scrolling all rows: longest task ${ms(p.scroll?.longest_main_task_cpu_ms)} CPU. Load average ${p.load?.avg1} on ${p.load?.cpus} CPUs.`,
    );
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

export function writeReport(results = readResults()) {
  fs.writeFileSync(REPORT_FILE, renderReport(results));
  return REPORT_FILE;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`Wrote ${path.relative(process.cwd(), writeReport())}\n`);
}
