#!/usr/bin/env node
// Benchmark: `switchyard run --dry-run --json` over generated workspaces (default 10,000
// tasks; goal <= 2 s). Prints, for the built CLI, wall and CPU time (user + system of the CLI
// process, read by a preloaded module; less sensitive to machine load than wall time) of cold
// runs (no plan cache) and warm runs (plan cache filled), the load average, the in-process
// phases (also with plans parsed in worker threads), the CLI's main-thread share of its CPU
// time, a cold run with two parse threads (SWITCHYARD_PARSE_WORKERS=2), a baseline
// measured in the same run (a node process that only lists and reads every PLAN.md), the
// ratio to it, the fixed cost of a dry run (a workspace without tasks), and how time per task
// scales from 2,500 to 10,000 tasks.
// Run: npx -y pnpm@10.34.9 build && npx -y pnpm@10.34.9 exec node test/bench/dry-run.mjs [tasks]
// `--cli <bin.js>` times another build's CLI (e.g. a copy of the previous build) instead.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planDryRun } from '@switchyard/engine/dry-run';
import { openClaimStore } from '@switchyard/store-fs';
import { buildTaskGraph, loadWorkspace, loadWorkspaceAsync } from '@switchyard/tasks';
import { generateWorkspace } from './dry-run-workspace.mjs';

const args = process.argv.slice(2);
const cliAt = args.indexOf('--cli');
const BIN =
  cliAt >= 0
    ? resolve(args[cliAt + 1])
    : fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./dry-run-cpu-preload.mjs', import.meta.url));
const [tasksArg] = args.filter((_, i) => i !== cliAt && i !== cliAt + 1);
const sizes = tasksArg ? [Number(tasksArg)] : [2_500, 5_000, 10_000];
console.log(`CLI: ${BIN}`);
const RUNS = 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t = performance.now();
  const value = fn();
  return { ms: performance.now() - t, value };
};
const cpuTime = (fn) => {
  const c = process.cpuUsage();
  const r = time(fn);
  const u = process.cpuUsage(c);
  return { ...r, cpuMs: (u.user + u.system) / 1000 };
};
const env = { ...process.env, PATH: `${process.env.PATH}:/usr/bin:/bin` };
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

const baselineScript = `
const { readdirSync, readFileSync } = require('node:fs'); const { join } = require('node:path');
const root = join(process.argv[1], 'agent-task'); let n = 0;
for (const g of readdirSync(root)) { if (g === 'archive' || g.startsWith('.')) continue;
  for (const t of readdirSync(join(root, g))) { n += readFileSync(join(root, g, t, 'PLAN.md'), 'utf8').length; } }
console.log(n);`;

// Fixed cost of a dry run (node start-up, module loading, config and catalog), measured on
// a workspace without tasks; the rest of the figures below grows with the tasks.
function fixedCost() {
  const root = mkdtempSync(join(tmpdir(), 'sy-bench-dry-empty-'));
  try {
    const { ws, catalog } = generateWorkspace(root, 0);
    mkdirSync(join(ws, 'agent-task'));
    const runs = [];
    for (let i = 0; i < RUNS; i++)
      runs.push(
        time(() =>
          execFileSync(
            process.execPath,
            [BIN, 'run', '--dry-run', '--json', '--workspace', ws, '--execution-catalog', catalog],
            { env },
          ),
        ).ms,
      );
    return median(runs);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
const fixedMs = fixedCost();
console.log(
  `fixed cost: dry run of a workspace without tasks ${fixedMs.toFixed(0)} ms (median of ${RUNS})`,
);

const rows = [];
for (const tasks of sizes) {
  const root = mkdtempSync(join(tmpdir(), 'sy-bench-dry-'));
  try {
    const { ws, catalog, archived } = generateWorkspace(root, tasks);
    const baseline = [];
    const cold = [];
    const warm = [];
    const coldThreads = [];
    let report;
    const cpuFile = join(root, 'cpu.json');
    const cliRun = (extraEnv = {}) => {
      const run = time(() =>
        execFileSync(
          process.execPath,
          [
            '--import',
            PRELOAD,
            BIN,
            'run',
            '--dry-run',
            '--json',
            '--workspace',
            ws,
            '--execution-catalog',
            catalog,
          ],
          { env: { ...env, ...extraEnv, SWITCHYARD_BENCH_CPU_FILE: cpuFile }, maxBuffer: 1 << 30 },
        ),
      );
      report = JSON.parse(run.value.toString());
      const cpu = JSON.parse(readFileSync(cpuFile, 'utf8'));
      return { ms: run.ms, cpuMs: cpu.userMs + cpu.systemMs, mainMs: cpu.mainThreadMs };
    };
    // Cold: no plan cache (every plan parsed, cache written); warm: the cache is reused.
    for (let i = 0; i < RUNS; i++) {
      baseline.push(
        time(() => execFileSync(process.execPath, ['-e', baselineScript, ws], { env })).ms,
      );
      rmSync(join(ws, 'agent-task', '.switchyard', 'cache'), { recursive: true, force: true });
      cold.push(cliRun());
      warm.push(cliRun());
      // Breakdown: the same cold run with two parse threads (the default depends on the CPUs).
      rmSync(join(ws, 'agent-task', '.switchyard', 'cache'), { recursive: true, force: true });
      coldThreads.push(cliRun({ SWITCHYARD_PARSE_WORKERS: '2' }));
    }
    const med = (runs, key) => median(runs.map((r) => r[key]));
    const loaded = cpuTime(() => loadWorkspace(ws));
    const model = loaded.value;
    // The same load with plans parsed in two worker threads.
    const asyncStart = performance.now();
    const asyncCpu = process.cpuUsage();
    await loadWorkspaceAsync(ws, { parallel: { workers: 2 } });
    const asyncUsage = process.cpuUsage(asyncCpu);
    const loadedAsync = {
      ms: performance.now() - asyncStart,
      cpuMs: (asyncUsage.user + asyncUsage.system) / 1000,
    };
    const graph = time(() =>
      buildTaskGraph(
        model.tasks.map((t) => ({ id: t.id, dependsOn: t.dependsOn })),
        new Set(model.archived.keys()),
      ),
    );
    const plan = time(() =>
      planDryRun({
        model,
        routing: { valid: false, problems: [], targetIds: new Set(), stages: [] },
        maxParallel: 3,
        claims: [],
        now: new Date(),
      }),
    );
    const row = {
      tasks,
      archived,
      paths: report.tasks.reduce((n, t) => n + t.write_set.length, 0),
      collisions: report.collisions.length,
      admitted: report.admission.admitted.length,
      errors: report.summary.errors,
      cliMs: med(warm, 'ms'),
      cliCpuMs: med(warm, 'cpuMs'),
      coldMs: med(cold, 'ms'),
      coldMinMs: Math.min(...cold.map((r) => r.ms)),
      warmMinMs: Math.min(...warm.map((r) => r.ms)),
      coldCpuMs: med(cold, 'cpuMs'),
      coldMainMs: med(cold, 'mainMs'),
      coldThreadsMs: med(coldThreads, 'ms'),
      coldThreadsCpuMs: med(coldThreads, 'cpuMs'),
      warmMainMs: med(warm, 'mainMs'),
      loadAsyncMs: loadedAsync.ms,
      loadAsyncCpuMs: loadedAsync.cpuMs,
      baselineMs: median(baseline),
      loadMs: loaded.ms,
      loadCpuMs: loaded.cpuMs,
      graphMs: graph.ms,
      planMs: plan.ms,
    };
    rows.push(row);
    console.log(
      `${String(tasks).padStart(6)} tasks (${archived} archived, ${row.paths} write-set paths, ${row.collisions} shared paths, ${row.errors} errors), load average ${load()}:\n` +
        `  CLI dry run (median of ${RUNS}): cold ${row.coldMs.toFixed(0)} ms wall / ${row.coldCpuMs.toFixed(0)} ms CPU, warm ${row.cliMs.toFixed(0)} ms wall / ${row.cliCpuMs.toFixed(0)} ms CPU (fastest run: cold ${row.coldMinMs.toFixed(0)} ms, warm ${row.warmMinMs.toFixed(0)} ms) · baseline read-all ${row.baselineMs.toFixed(0)} ms · warm/baseline ${(row.cliMs / row.baselineMs).toFixed(1)}x\n` +
        `  CLI main-thread CPU (the rest: parse threads if any, GC helpers): cold ${row.coldMainMs.toFixed(0)} ms, warm ${row.warmMainMs.toFixed(0)} ms · cold with 2 parse threads (SWITCHYARD_PARSE_WORKERS=2) ${row.coldThreadsMs.toFixed(0)} ms wall / ${row.coldThreadsCpuMs.toFixed(0)} ms CPU\n` +
        `  in-process (no cache): load+parse ${row.loadMs.toFixed(0)} ms wall / ${row.loadCpuMs.toFixed(0)} ms CPU, with 2 threads ${row.loadAsyncMs.toFixed(0)} ms wall / ${row.loadAsyncCpuMs.toFixed(0)} ms CPU, graph ${row.graphMs.toFixed(0)} ms, admission+report ${row.planMs.toFixed(0)} ms` +
        `${tasks >= 10_000 ? `\n  goal <= 2000 ms wall: cold ${row.coldMs <= 2000 ? 'met' : 'NOT met'}, warm ${row.cliMs <= 2000 ? 'met' : 'NOT met'}` : ''}`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
if (rows.length > 1) {
  const first = rows[0];
  const last = rows[rows.length - 1];
  const perTask = (r) => (r.cliMs - r.baselineMs) / r.tasks;
  console.log(
    `scaling ${first.tasks} -> ${last.tasks} tasks: time per task (CLI minus baseline) ${perTask(first).toFixed(3)} -> ${perTask(last).toFixed(3)} ms, ratio ${(perTask(last) / perTask(first)).toFixed(2)} (1.0 = linear, ~${(last.tasks / first.tasks).toFixed(0)} = quadratic)`,
  );
}

// Claim lookups: conflicting tryClaim (a pure lookup, no write) against stores holding 1,000
// and 10,000 claims of 3 paths each. Flat per-operation time = index lookup, not a scan.
for (const held of [1_000, 10_000]) {
  const root = mkdtempSync(join(tmpdir(), 'sy-bench-claims-'));
  try {
    const store = await openClaimStore(root);
    const { writeFileSync } = await import('node:fs');
    mkdirSync(join(root, 'claims')); // the store makes it with its first change
    const tasksDoc = {};
    for (let i = 0; i < held; i++)
      tasksDoc[`g/t${i}`] = {
        paths: [`a/${i}.ts`, `b/${i}.ts`, `c/${i}.ts`],
        since: new Date().toISOString(),
      };
    writeFileSync(
      join(root, 'claims', 'claims.json'),
      JSON.stringify({ schema_version: 1, tasks: tasksDoc }),
    );
    await store.holderOf('warm-up'); // loads and indexes once
    const ops = 2_000;
    const t = performance.now();
    for (let i = 0; i < ops; i++) {
      const r = await store.tryClaim('g/new', [`x/${i}.ts`, `b/${(i * 7) % held}.ts`]);
      if (r.ok) throw new Error('expected a conflict');
    }
    const ms = performance.now() - t;
    console.log(
      `claims: ${held} held claims (${held * 3} paths): ${(ms / ops).toFixed(3)} ms per conflicting tryClaim (mutex + lookup)`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
