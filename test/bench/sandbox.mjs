#!/usr/bin/env node
// Sandbox start-up benchmark (issue 27). Run from the repo root after `pnpm build`:
//   node_modules/.bin/node test/bench/sandbox.mjs [--attempts 200] [--parallel 8] [--rounds 2]
// Measured in the same run, sandboxed (bubblewrap, `sandbox: { mode: "bwrap" }`) against
// unsandboxed, each configuration `--rounds` times in turn (the fastest round counts, so a
// neighbour's burst of load does not decide the ratio):
// 1. the shared runner: N attempts of `true` (spawn, evidence files, locator, tail, exit) at
//    P-way parallelism; bwrap gets the mount table of a real attempt (worktree, attempt and
//    task folders, an agent folder, hidden credential folders, .git read-only);
// 2. the dispatcher: `switchyard run --max-parallel P` over N/2 tasks, each a worker and a
//    review, by the smallest agent that does the stage's work (true-agent.sh, no sleep): the
//    start-up cost per attempt as a user's run pays it;
// 3. the dispatch bench's workload (dispatch.mjs: its 50 ms agent, dispatch-agent.sh) at N
//    attempts. Goal: sandboxed / unsandboxed <= 1.1.
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDispatchWorkspace } from './dispatch-workspace.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const CLI = join(root, 'packages/cli/dist/bin.js');
const TRUE_AGENT = join(here, 'true-agent.sh');
const DISPATCH_AGENT = join(here, 'dispatch-agent.sh');
const { SpawnHelperClient, startAttempt } = await import(
  new URL('../../plugins/runner-text/dist/index.js', import.meta.url).href
);
const { attemptEnvironment } = await import(
  new URL(
    '../../plugins/runner-text/node_modules/@switchyard/runner-kit/dist/index.js',
    import.meta.url,
  ).href
);
const { findExecutable } = await import(
  new URL(
    '../../plugins/runner-text/node_modules/@switchyard/catalog/dist/index.js',
    import.meta.url,
  ).href
);

const { values: opts } = parseArgs({
  options: {
    attempts: { type: 'string', default: '200' },
    parallel: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
  },
});
const N = Number(opts.attempts);
const P = Number(opts.parallel);
const ROUNDS = Number(opts.rounds);
const BWRAP = findExecutable('bwrap');
if (!BWRAP) {
  console.error('bwrap is not installed: `apt-get install bubblewrap` (the benchmark needs it).');
  process.exit(1);
}
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);

// 1. the runner
const base = mkdtempSync(join(tmpdir(), 'sy-bench-sandbox-'));
const home = join(base, 'home');
for (const dir of ['ws/.git', 'ws/src', 'ws/agent-task/g/t', 'home/.agent', 'home/.ssh'])
  mkdirSync(join(base, dir), { recursive: true });
writeFileSync(join(home, '.netrc'), '');
let seq = 0;
function spec(sandboxed) {
  const attemptId = `bench-${process.pid}-${++seq}`;
  const attemptDir = join(base, 'ws', 'agent-task', '.switchyard', 'attempts', attemptId);
  mkdirSync(attemptDir, { recursive: true });
  const ws = join(base, 'ws');
  const argv = ['true'];
  const mounts = [
    ['ro-bind', '/', 'root'],
    ['dev', '/dev', 'dev'],
    ['proc', '/proc', 'proc'],
    ['tmpfs', '/tmp', 'tmp'],
    ['ro-bind', base, 'visible'],
    ['bind', join(home, '.agent'), 'agent'],
    ['hide-dir', join(home, '.ssh'), 'hide'],
    ['hide-file', join(home, '.netrc'), 'hide'],
    ['bind', join(ws, 'src'), 'write-set'],
    ['bind', join(ws, 'agent-task', 'g', 't'), 'task'],
    ['bind', attemptDir, 'attempt'],
  ].map(([type, path, why]) => ({ type, path, why }));
  return {
    attemptId,
    attemptDir,
    agent: 'bench',
    outputFormat: 'text',
    argv,
    cwd: ws,
    env: attemptEnvironment({ attemptId, role: 'worker', workspace: ws, attemptDir }),
    stallTimeoutMs: 600_000,
    retryLoopTimeoutMs: 600_000,
    locator: {
      taskId: 'bench/t',
      role: 'worker',
      planLoop: 0,
      targetId: 'bench',
      agent: 'bench',
      model: 'none',
      executionClass: 'local_model',
      runtime: { command: argv, argv, outputFormat: 'text' },
      catalog: { source: 'bench', revision: '0' },
    },
    ...(sandboxed ? { sandbox: { mode: 'bwrap', command: BWRAP, network: 'host', mounts } } : {}),
  };
}

const ticksPerSecond =
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
/** CPU ms of a process and its reaped children (utime + stime + cutime + cstime). */
function processTreeCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (
      ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / ticksPerSecond
    );
  } catch {
    return 0;
  }
}

/** CPU ms of this process's reaped children (cutime + cstime): a finished dispatcher run. */
function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[13]) + Number(f[14])) * 1000) / ticksPerSecond;
}

async function runnerRound(sandboxed) {
  let next = 0;
  // CPU: this process, and the spawn helper with the agents it started and reaped
  const helper = () => processTreeCpuMs(SpawnHelperClient.shared()?.pid ?? 0);
  const own = process.cpuUsage();
  const helperBefore = helper();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: P }, async () => {
      while (next < N) {
        next++;
        const handle = await startAttempt(spec(sandboxed));
        const outcome = await handle.done;
        if (outcome.exitCode !== 0) throw new Error(`attempt failed: ${JSON.stringify(outcome)}`);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(own);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 + helper() - helperBefore };
}

// 2. and 3. the dispatcher
const dispatcherRound = (agent) => (sandboxed) => {
  const ws = createDispatchWorkspace(
    'sy-bench-sandbox-dispatch-',
    N / 2,
    ['/bin/sh', agent],
    sandboxed ? { sandbox: { mode: 'bwrap' } } : {},
  );
  const started = performance.now();
  const cpuBefore = childrenCpuMs();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--workspace',
        ws.dir,
        '--execution-catalog',
        ws.catalog,
        '--max-parallel',
        String(P),
      ],
      { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      // the dispatcher is reaped: its CPU, its helper's and every agent's are in ours now
      const cpuMs = childrenCpuMs() - cpuBefore;
      const archived = readdirSync(join(ws.dir, 'agent-task', 'archive', 'bench')).filter((n) =>
        n.startsWith('t'),
      ).length;
      rmSync(ws.dir, { recursive: true, force: true });
      if (code !== 0 || archived !== N / 2)
        reject(new Error(`dispatcher exited ${code}, ${archived} archived\n${out.slice(-2000)}`));
      else resolvePromise({ wallMs, cpuMs });
    });
  });
};

async function compare(name, round) {
  const inf = Number.POSITIVE_INFINITY;
  const best = { none: { wallMs: inf, cpuMs: inf }, bwrap: { wallMs: inf, cpuMs: inf } };
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of ['none', 'bwrap']) {
      const got = await round(mode === 'bwrap');
      best[mode] = {
        wallMs: Math.min(best[mode].wallMs, got.wallMs),
        cpuMs: Math.min(best[mode].cpuMs, got.cpuMs),
      };
    }
  }
  const line = (label, b) =>
    console.log(
      `  ${label} wall ${b.wallMs.toFixed(0)} ms (${(b.wallMs / N).toFixed(2)} ms/attempt), CPU ${b.cpuMs.toFixed(0)} ms (${(b.cpuMs / N).toFixed(2)} ms/attempt)`,
    );
  console.log(`${name}: ${N} attempts, ${P}-way, best of ${ROUNDS}`);
  line('unsandboxed', best.none);
  line('bwrap      ', best.bwrap);
  const ratio = {
    wall: best.bwrap.wallMs / best.none.wallMs,
    cpu: best.bwrap.cpuMs / best.none.cpuMs,
  };
  console.log(`  ratio       wall ${ratio.wall.toFixed(3)}, CPU ${ratio.cpu.toFixed(3)}`);
  return ratio;
}

console.log(
  `bubblewrap: ${execFileSync(BWRAP, ['--version'], { encoding: 'utf8' }).trim()} (${BWRAP}); load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`,
);
await compare('1. runner, `true` agent', runnerRound);
await compare('2. switchyard run, `true` agent doing its stage', dispatcherRound(TRUE_AGENT));
const ratio = await compare(
  '3. switchyard run, the dispatch bench workload (50 ms agent)',
  dispatcherRound(DISPATCH_AGENT),
);
console.log(
  `  goal        <= 1.1: wall ${ratio.wall <= 1.1 ? 'met' : 'NOT met'}, CPU ${ratio.cpu <= 1.1 ? 'met' : 'NOT met'} (load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs at the end; wall time follows CPU where the CPUs are the limit)`,
);
rmSync(base, { recursive: true, force: true });
