#!/usr/bin/env node
// Dispatcher overhead benchmark (issue 6). Run from the repo root after `pnpm build`:
//   node_modules/.bin/node test/bench/dispatch.mjs [--tasks 500] [--parallel 8] [--watch 32] [--watch-seconds 15]
//     [--profile DIR]   (writes a V8 CPU profile of the timed dispatcher run into DIR)
// 1. 500 tasks, each a worker and a review by a 50 ms POSIX sh agent (dispatch-agent.sh),
//    `switchyard run --max-parallel 8` vs GNU `parallel -j 8` running the same 1,000 agent
//    commands, measured in the same run: wall-time ratio (goal <= 1.15) and the dispatcher's
//    own CPU time (user+sys of its process, children excluded), plus its spawn helper's. Also
//    the CPU of everything each side ran (agents included): on a machine whose CPUs are the
//    limit, wall time follows it, so that ratio holds up when other work shares the machine.
// 2. CPU use of a dispatcher watching 32 long-running agents that stream a line every 100 ms
//    (goal <= 3% of one core), sampled from /proc/<pid>/stat.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDispatchWorkspace } from './dispatch-workspace.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const CLI = join(root, 'packages/cli/dist/bin.js');
const AGENT = join(here, 'dispatch-agent.sh');
const STREAM_AGENT = join(here, 'stream-agent.sh');
const PRELOAD = join(here, 'cpu-usage-preload.mjs');

const { values: opts } = parseArgs({
  options: {
    tasks: { type: 'string', default: '500' },
    parallel: { type: 'string', default: '8' },
    watch: { type: 'string', default: '32' },
    'watch-seconds': { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const TASKS = Number(opts.tasks);
const J = Number(opts.parallel);
const WATCH = Number(opts.watch);
const WATCH_S = Number(opts['watch-seconds']);

function requireTools() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);
  try {
    execFileSync('parallel', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error(
      'GNU parallel is not installed: `apt-get install parallel` (the baseline needs it).',
    );
    process.exit(1);
  }
}

const shellQuote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/** The baseline: the same 1,000 agent commands with the env the dispatcher would give them. */
function parallelBaseline() {
  const ws = createDispatchWorkspace('sy-bench-parallel-', TASKS, ['/bin/sh', AGENT]);
  const lines = [];
  for (const id of ws.ids) {
    const task = join(ws.dir, 'agent-task', id);
    const env = (role, extra = '') =>
      `SWITCHYARD_ROLE=${role} SWITCHYARD_TASK_ID=${id} SWITCHYARD_WORKSPACE=${shellQuote(ws.dir)} SWITCHYARD_PLAN=${shellQuote(join(task, 'PLAN.md'))}${extra}`;
    lines.push(`${env('worker')} /bin/sh ${shellQuote(AGENT)}`);
    lines.push(
      `${env('review', ` SWITCHYARD_REVIEW_FILE=${shellQuote(join(task, 'CODE_REVIEW-1.md'))}`)} /bin/sh ${shellQuote(AGENT)}`,
    );
  }
  const children0 = childrenCpuMs();
  const started = process.hrtime.bigint();
  execFileSync('parallel', ['-j', String(J)], {
    input: `${lines.join('\n')}\n`,
    stdio: ['pipe', 'ignore', 'inherit'],
    maxBuffer: 1 << 26,
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const cpuMs = childrenCpuMs() - children0;
  const reviews = ws.ids.filter((id) =>
    existsSync(join(ws.dir, 'agent-task', id, 'CODE_REVIEW-1.md')),
  ).length;
  if (!opts.keep) rmSync(ws.dir, { recursive: true, force: true });
  return { wallMs, commands: lines.length, reviews, cpuMs };
}

/** CPU time of this process's reaped descendants (cutime + cstime). */
function childrenCpuMs() {
  const f = readFileSync('/proc/self/stat', 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
}

function startDispatcher(ws, args, cpuFile) {
  const profile =
    cpuFile && opts.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve(opts.profile)] : [];
  const child = spawn(
    process.execPath,
    [
      ...profile,
      '--import',
      PRELOAD,
      CLI,
      'run',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalog,
      ...args,
    ],
    {
      env: {
        ...process.env,
        NO_COLOR: '1',
        ...(cpuFile ? { SWITCHYARD_BENCH_CPU_FILE: cpuFile } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise((res) => child.on('close', (code) => res(code)));
  return { child, exited, output: () => out };
}

function events(dir) {
  const file = join(dir, 'agent-task', '.switchyard', 'events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

async function dispatcherRun() {
  const ws = createDispatchWorkspace('sy-bench-dispatch-', TASKS, ['/bin/sh', AGENT]);
  const cpuFile = join(ws.dir, 'cpu.json');
  const started = process.hrtime.bigint();
  const run = startDispatcher(ws, ['--max-parallel', String(J)], cpuFile);
  const helperCpu = sampleHelperCpu(run.child.pid);
  const code = await run.exited;
  helperCpu.stop();
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) throw new Error(`dispatcher exited ${code}\n${run.output().slice(-3000)}`);
  const archived = readdirSync(join(ws.dir, 'agent-task', 'archive', 'bench')).filter((n) =>
    n.startsWith('t'),
  ).length;
  const cpu = JSON.parse(readFileSync(cpuFile, 'utf8'));
  const evs = events(ws.dir);
  const runStarted = evs.find((e) => e.type === 'run.started');
  const attempts = evs.filter((e) => e.type === 'attempt.finished').length;
  const startupMs = runStarted ? Date.parse(runStarted.at) - (Date.now() - wallMs) : Number.NaN;
  if (!opts.keep) rmSync(ws.dir, { recursive: true, force: true });
  return {
    wallMs,
    archived,
    attempts,
    cpu,
    startupMs,
    helperMs: helperCpu.ms(),
    agentsMs: helperCpu.ms('agents'),
  };
}

const ticksPerSecond =
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime of the process itself
}

/** CPU time of the dispatcher's spawn helper (its child running spawn-helper.js), sampled
 * from /proc until the run ends: agents are started there, so it counts as dispatcher cost. */
function sampleHelperCpu(dispatcherPid) {
  const last = new Map();
  const sample = () => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(f[1]) !== dispatcherPid) continue;
        if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('spawn-helper')) continue;
        last.set(entry, {
          self: Number(f[11]) + Number(f[12]),
          agents: Number(f[13]) + Number(f[14]),
        });
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = setInterval(sample, 250);
  return {
    stop: () => clearInterval(timer),
    ms: (key = 'self') =>
      ([...last.values()].reduce((a, b) => a + b[key], 0) * 1000) / ticksPerSecond,
  };
}

async function watchRun() {
  const ws = createDispatchWorkspace(
    'sy-bench-watch-',
    WATCH,
    ['/bin/sh', STREAM_AGENT, String(WATCH_S + 120)],
    { stallTimeoutMs: 600_000 },
  );
  const run = startDispatcher(ws, ['--max-parallel', String(WATCH)]);
  const deadline = Date.now() + 120_000;
  while (events(ws.dir).filter((e) => e.type === 'attempt.started').length < WATCH) {
    if (Date.now() > deadline)
      throw new Error(`only some of ${WATCH} agents started\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 2000)); // let start-up work settle
  const pid = run.child.pid;
  const t0 = cpuTicks(pid);
  const w0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, WATCH_S * 1000));
  const cpuS = (cpuTicks(pid) - t0) / ticksPerSecond;
  const wallS = Number(process.hrtime.bigint() - w0) / 1e9;
  const streamed = readdirSync(join(ws.dir, 'agent-task', '.switchyard', 'attempts')).length;
  run.child.kill('SIGINT');
  const code = await run.exited;
  if (!opts.keep) rmSync(ws.dir, { recursive: true, force: true });
  return { percent: (100 * cpuS) / wallS, cpuS, wallS, streamed, code };
}

requireTools();
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `dispatch benchmark: ${TASKS} tasks x (worker + review), 50 ms sh agent, -j ${J}; ${
    readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('processor')).length
  } CPUs, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
const base = parallelBaseline();
console.log(
  `  GNU parallel -j ${J}: ${base.commands} commands in ${fmt(base.wallMs)} (${base.reviews} reviews written)`,
);
const disp = await dispatcherRun();
console.log(
  `  switchyard run --max-parallel ${J}: ${disp.archived} tasks archived, ${disp.attempts} attempts in ${fmt(disp.wallMs)} (start-up to run.started ~${fmt(disp.startupMs)})`,
);
const ratio = disp.wallMs / base.wallMs;
const cpus = readFileSync('/proc/cpuinfo', 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('processor')).length;
const load = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
console.log(
  `  floor (sleeps only): ${fmt((base.commands * 50) / J)}; load average now ${load}${load > cpus ? ` > ${cpus} CPUs: other work competes, both timings are inflated` : ''}`,
);
const cpuMs = disp.cpu.userMs + disp.cpu.systemMs;
console.log(
  `  wall-time ratio dispatcher / parallel: ${ratio.toFixed(3)} (goal <= 1.15) ${ratio <= 1.15 ? 'MET' : 'MISSED'}`,
);
console.log(
  `  dispatcher CPU (own process, children excluded): user ${fmt(disp.cpu.userMs)} + sys ${fmt(disp.cpu.systemMs)} = ${fmt(cpuMs)}, ${(cpuMs / disp.attempts).toFixed(1)} ms per attempt`,
);
console.log(
  `  + its spawn helper (sampled every 250 ms): ${fmt(disp.helperMs)}; together ${((cpuMs + disp.helperMs) / disp.attempts).toFixed(1)} ms per attempt`,
);
// Where CPUs are the limit (the agents' own start-up is not free), wall time follows total CPU:
// this ratio does not depend on what else the machine runs.
const allCpuMs = cpuMs + disp.helperMs + disp.agentsMs;
console.log(
  `  CPU of everything (agents included): parallel ${fmt(base.cpuMs)}, switchyard ${fmt(allCpuMs)} (agents ${fmt(disp.agentsMs)}): ratio ${(allCpuMs / base.cpuMs).toFixed(3)}`,
);
const watch = await watchRun();
console.log(
  `  watching ${WATCH} streaming agents for ${watch.wallS.toFixed(1)} s: ${watch.cpuS.toFixed(2)} s CPU = ${watch.percent.toFixed(2)}% of one core (goal <= 3%) ${watch.percent <= 3 ? 'MET' : 'MISSED'}; interrupted with exit ${watch.code}`,
);
