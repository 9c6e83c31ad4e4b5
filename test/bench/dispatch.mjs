#!/usr/bin/env node
// Dispatcher overhead benchmark (issues 6, 30). Run from the repo root after `pnpm build`:
//   node_modules/.bin/node test/bench/dispatch.mjs [--tasks 500] [--parallel 8] [--rounds 1]
//     [--breakdown-tasks 100] [--version-runs 30] [--watch 32] [--watch-seconds 15]
//     [--profile DIR]   (also writes a V8 CPU profile of each timed dispatcher run into DIR)
//     [--cli PATH]      (times another build's packages/cli/dist/bin.js, e.g. main's, for a before/after)
//   quick run: --tasks 100 --breakdown-tasks 50 --version-runs 10 --watch 4 --watch-seconds 3
// 1. `--tasks` tasks, each a worker and a review by a 50 ms POSIX sh agent (dispatch-agent.sh),
//    in one shared workspace: `switchyard run --max-parallel 8` vs `xargs -P 8` running the
//    same agent processes with the same environment and work (the honest floor: GNU parallel's
//    own per-job cost made it slower than switchyard), measured in the same run (`--rounds`
//    alternates them): wall-time ratio (goal <= 1.15) and the dispatcher's own CPU time
//    (user+sys of its process, children excluded), plus its spawn helper's. Also the CPU of
//    everything each side ran (agents included): on a machine whose CPUs are the limit, wall
//    time follows it, so that ratio holds up when other work shares the machine.
// 2. Where the dispatcher's CPU per attempt goes: a separate run of `--breakdown-tasks` tasks
//    under `node --cpu-prof`, its samples sorted into spawn, fsync, store writes, event
//    fan-out, plan reloads… (cpu-profile-breakdown.mjs), and its file-system calls per attempt
//    by kind with their main-thread and thread-pool time (fs-ops-preload.mjs). 0 skips it.
// 3. `switchyard --version` vs `node -e 0` (goal <= 1.5; version-startup.mjs). 0 skips it.
// 4. CPU use of a dispatcher watching 32 long-running agents that stream a line every 100 ms
//    (goal <= 3% of one core), sampled from /proc/<pid>/stat. `--watch 0` skips it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { profileBreakdown } from './cpu-profile-breakdown.mjs';
import { createDispatchWorkspace } from './dispatch-workspace.mjs';
import { measureVersionStartup } from './version-startup.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const CLI = join(root, 'packages/cli/dist/bin.js');
const BIN = join(root, 'packages/cli/bin/switchyard.js'); // the installed `switchyard` command
const AGENT = join(here, 'dispatch-agent.sh');
const STREAM_AGENT = join(here, 'stream-agent.sh');
const PRELOAD = join(here, 'cpu-usage-preload.mjs');
const FS_OPS_PRELOAD = join(here, 'fs-ops-preload.mjs');

const { values: opts } = parseArgs({
  options: {
    tasks: { type: 'string', default: '500' },
    parallel: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '1' },
    'breakdown-tasks': { type: 'string', default: '100' },
    'version-runs': { type: 'string', default: '30' },
    watch: { type: 'string', default: '32' },
    'watch-seconds': { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'string' },
    cli: { type: 'string' },
  },
});
// Another build's dist/bin.js (e.g. a checkout of main) to time instead of this one's.
const DISPATCHER_CLI = opts.cli ? resolve(opts.cli) : CLI;
const TASKS = Number(opts.tasks);
const J = Number(opts.parallel);
const ROUNDS = Math.max(1, Number(opts.rounds));
const BREAKDOWN_TASKS = Number(opts['breakdown-tasks']);
const VERSION_RUNS = Number(opts['version-runs']);
const WATCH = Number(opts.watch);
const WATCH_S = Number(opts['watch-seconds']);

function requireTools() {
  for (const file of [CLI, DISPATCHER_CLI])
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`pnpm build\` first`);
  try {
    execFileSync('xargs', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error(
      'GNU xargs is not installed: `apt-get install findutils` (the baseline needs it).',
    );
    process.exit(1);
  }
}

const shellQuote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * The baseline: `xargs -P J` running the same agent commands with the environment the
 * dispatcher gives them (through `env`, which execs the agent: no extra process), reading one
 * command per line.
 */
function xargsBaseline() {
  const ws = createDispatchWorkspace('sy-bench-xargs-', TASKS, ['/bin/sh', AGENT]);
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
  execFileSync('xargs', ['-P', String(J), '-L', '1', 'env'], {
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

function startDispatcher(ws, args, cpuFile, profileDir, fsOpsFile) {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)] : [];
  const fsOps = fsOpsFile ? ['--import', FS_OPS_PRELOAD] : [];
  const child = spawn(
    process.execPath,
    [
      ...profile,
      ...fsOps,
      '--import',
      PRELOAD,
      DISPATCHER_CLI,
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
        ...(fsOpsFile ? { SWITCHYARD_BENCH_FSOPS_FILE: fsOpsFile } : {}),
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

/** One dispatcher run over `tasks` fresh tasks; `profileDir`: run it under --cpu-prof;
 * `fsOpsFile`: count its file-system calls into that file (fs-ops-preload.mjs). */
async function dispatcherRun(tasks, profileDir, fsOpsFile) {
  const ws = createDispatchWorkspace('sy-bench-dispatch-', tasks, ['/bin/sh', AGENT]);
  const cpuFile = join(ws.dir, 'cpu.json');
  const started = process.hrtime.bigint();
  const run = startDispatcher(ws, ['--max-parallel', String(J)], cpuFile, profileDir, fsOpsFile);
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

/** The dispatcher's CPU per attempt by category, from a profiled run of `tasks` tasks. */
async function breakdownRun(tasks) {
  const dir = mkdtempSync(join(tmpdir(), 'sy-bench-profile-'));
  try {
    const fsOpsFile = join(dir, 'fs-ops.json');
    const run = await dispatcherRun(tasks, dir, fsOpsFile);
    const [file] = readdirSync(dir).filter((n) => n.endsWith('.cpuprofile'));
    if (!file) throw new Error('the profiled dispatcher wrote no .cpuprofile');
    const { kinds, replacements } = JSON.parse(readFileSync(fsOpsFile, 'utf8'));
    return { run, profile: profileBreakdown(join(dir, file)), fsOps: kinds, replacements };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

requireTools();
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
const cpus = readFileSync('/proc/cpuinfo', 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('processor')).length;
const loadNow = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `dispatch benchmark: ${TASKS} tasks x (worker + review), 50 ms sh agent, -P ${J}, ${ROUNDS} round(s); ${cpus} CPUs, load ${loadNow()}`,
);
// Baseline and dispatcher alternate, so load that comes and goes hits both alike.
const bases = [];
const disps = [];
for (let round = 0; round < ROUNDS; round++) {
  const base = xargsBaseline();
  bases.push(base);
  console.log(
    `  xargs -P ${J}: ${base.commands} commands in ${fmt(base.wallMs)} (${base.reviews} reviews written)`,
  );
  const disp = await dispatcherRun(TASKS, opts.profile);
  disps.push(disp);
  console.log(
    `  switchyard run --max-parallel ${J}: ${disp.archived} tasks archived, ${disp.attempts} attempts in ${fmt(disp.wallMs)} (start-up to run.started ~${fmt(disp.startupMs)})`,
  );
}
const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);
/** The main thread's CPU of runs (undefined when a run's Node could not tell it). */
const mainThreadMs = (cpus) =>
  cpus.every((c) => c.mainUserMs !== undefined)
    ? sum(cpus, (c) => c.mainUserMs + c.mainSystemMs)
    : undefined;
const baseWall = sum(bases, (b) => b.wallMs);
const dispWall = sum(disps, (d) => d.wallMs);
const attempts = sum(disps, (d) => d.attempts);
const commands = sum(bases, (b) => b.commands);
const ratio = dispWall / baseWall;
const load = Number(loadNow().split(' ')[0]);
console.log(
  `  floor (sleeps only): ${fmt((commands * 50) / J / ROUNDS)} per round; load average now ${load}${load > cpus ? ` > ${cpus} CPUs: other work competes, both timings are inflated` : ''}`,
);
console.log(
  `  wall-time ratio switchyard / xargs: ${ratio.toFixed(3)} (goal <= 1.15) ${ratio <= 1.15 ? 'MET' : 'MISSED'}; per command: xargs ${((baseWall * J) / commands).toFixed(1)} ms, switchyard ${((dispWall * J) / attempts).toFixed(1)} ms of a slot`,
);
const userMs = sum(disps, (d) => d.cpu.userMs);
const systemMs = sum(disps, (d) => d.cpu.systemMs);
const cpuMs = userMs + systemMs;
const helperMs = sum(disps, (d) => d.helperMs);
const mainMs = mainThreadMs(disps.map((d) => d.cpu));
console.log(
  `  dispatcher CPU (own process, children excluded): user ${fmt(userMs)} + sys ${fmt(systemMs)} = ${fmt(cpuMs)}, ${(cpuMs / attempts).toFixed(1)} ms per attempt${mainMs === undefined ? '' : `; its main thread (the event loop, libuv's thread pool left out) ${fmt(mainMs)}, ${(mainMs / attempts).toFixed(1)} ms per attempt`}`,
);
console.log(
  `  + its spawn helper (sampled every 250 ms): ${fmt(helperMs)}; together ${((cpuMs + helperMs) / attempts).toFixed(1)} ms per attempt`,
);
// Where CPUs are the limit (the agents' own start-up is not free), wall time follows total CPU:
// this ratio does not depend on what else the machine runs.
const agentsMs = sum(disps, (d) => d.agentsMs);
const allCpuMs = cpuMs + helperMs + agentsMs;
const baseCpuMs = sum(bases, (b) => b.cpuMs);
console.log(
  `  CPU of everything (agents included): xargs ${fmt(baseCpuMs)}, switchyard ${fmt(allCpuMs)} (agents ${fmt(agentsMs)}): ratio ${(allCpuMs / baseCpuMs).toFixed(3)}`,
);
if (BREAKDOWN_TASKS > 0) {
  const { run, profile, fsOps, replacements } = await breakdownRun(BREAKDOWN_TASKS);
  // On a loaded machine the profiler's samples also count time the process waited for a CPU:
  // each category's share of the samples is scaled to the CPU the run really used, on the
  // thread the profiler samples (the main thread; the process's CPU where that is unknown).
  const runCpuMs = mainThreadMs([run.cpu]) ?? run.cpu.userMs + run.cpu.systemMs;
  const per = (ms) =>
    `${((ms / profile.totalMs) * (runCpuMs / run.attempts)).toFixed(2).padStart(6)} ms`;
  console.log(
    `  where the dispatcher's CPU per attempt goes (${BREAKDOWN_TASKS} tasks under --cpu-prof, ${run.attempts} attempts, ${(runCpuMs / run.attempts).toFixed(1)} ms CPU per attempt ${run.cpu.mainUserMs === undefined ? '(process)' : '(main thread)'}; shares of the profile's samples, idle left out):`,
  );
  for (const row of [...profile.rows].sort((a, b) => b.ms - a.ms))
    console.log(
      `    ${per(row.ms)} ${((100 * row.ms) / profile.totalMs).toFixed(1).padStart(5)}%  ${row.name}`,
    );
  console.log(
    `    most of 'other': ${profile.otherTop.map((o) => `${o.name.trim()} ${per(o.ms).trim()}`).join('; ')}`,
  );
  // The same run's file-system calls per attempt: the counts do not depend on the load (the
  // times do); main thread = the event loop blocked, thread pool = from call to callback.
  console.log(
    `  the dispatcher's file-system calls per attempt (same run; main thread blocked / thread pool, wall):`,
  );
  const perAttempt = (x) => x / run.attempts;
  for (const [kind, k] of Object.entries(fsOps).sort((a, b) => b[1].count - a[1].count))
    console.log(
      `    ${perAttempt(k.count).toFixed(1).padStart(6)} x ${perAttempt(k.syncMs).toFixed(2).padStart(6)} ms / ${perAttempt(k.asyncMs).toFixed(2).padStart(6)} ms  ${kind}`,
    );
  // The new files by the file they replace and the call site that wrote them: the figure to
  // bring down (each creates and frees an inode).
  const total = (sites) => Object.values(sites).reduce((a, n) => a + n, 0);
  console.log(`  new files per attempt by the file they replace (call sites below each):`);
  for (const [record, sites] of Object.entries(replacements).sort(
    (a, b) => total(b[1]) - total(a[1]),
  )) {
    console.log(`    ${perAttempt(total(sites)).toFixed(2).padStart(6)}  ${record}`);
    for (const [site, n] of Object.entries(sites).sort((a, b) => b[1] - a[1]))
      console.log(`      ${perAttempt(n).toFixed(2).padStart(6)}  ${site}`);
  }
}
if (VERSION_RUNS > 0) {
  const v = measureVersionStartup(BIN, VERSION_RUNS);
  console.log(
    `  switchyard --version ${v.versionMs.toFixed(1)} ms vs node -e 0 ${v.floorMs.toFixed(1)} ms: ratio ${v.ratio.toFixed(2)} (goal <= 1.5) ${v.ratio <= 1.5 ? 'MET' : 'MISSED'}; ratio of the fastest runs ${v.minRatio.toFixed(2)}${v.cpuRatio ? `, of CPU (user + sys) ${v.cpuRatio.toFixed(2)}` : ''} (${v.tool})`,
  );
}
if (WATCH > 0) {
  const watch = await watchRun();
  console.log(
    `  watching ${WATCH} streaming agents for ${watch.wallS.toFixed(1)} s: ${watch.cpuS.toFixed(2)} s CPU = ${watch.percent.toFixed(2)}% of one core (goal <= 3%) ${watch.percent <= 3 ? 'MET' : 'MISSED'}; interrupted with exit ${watch.code}`,
  );
}
