// Runner overhead benchmark: `node test/bench/runner-overhead.mjs [attempts] [parallel] [--gnu]`
// (after `pnpm build`). Prints, measured in the same run:
//  1. N attempts of a 50 ms agent (`sleep 0.05`) at P-way parallelism through the shared
//     attempt runner (spawn, evidence files, locator, heartbeat, tail) vs a bare spawn pool
//     and, with --gnu, GNU parallel running the same commands (goal: ratio <= 1.15);
//  2. dispatcher CPU while 32 agents stream a line every 20 ms for 5 s (goal: <= 3% of one core).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { startAttempt } = await import(
  new URL('../../plugins/runner-text/dist/index.js', import.meta.url).href
);
const { attemptEnvironment } = await import(
  new URL(
    '../../plugins/runner-text/node_modules/@switchyard/runner-kit/dist/index.js',
    import.meta.url,
  ).href
);

const attempts = Number(process.argv[2] ?? 400);
const parallel = Number(process.argv[3] ?? 8);
const root = mkdtempSync(join(tmpdir(), 'sy-bench-runner-'));
let seq = 0;

function spec(argv) {
  const attemptId = `bench-${process.pid}-${++seq}`;
  const attemptDir = join(root, attemptId);
  return {
    attemptId,
    attemptDir,
    agent: 'bench',
    outputFormat: 'text',
    argv,
    cwd: root,
    env: attemptEnvironment({ attemptId, role: 'worker', workspace: root, attemptDir }),
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
  };
}

async function pool(n, width, run) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await run();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}

// 1. overhead vs a bare spawn pool (and GNU parallel with --gnu: slow to start on small boxes)
const spawnBare = () =>
  new Promise((resolve) => spawn('sleep', ['0.05'], { stdio: 'ignore' }).once('exit', resolve));
const t0 = performance.now();
await pool(attempts, parallel, spawnBare);
const bare = performance.now() - t0;
let gnu;
if (process.argv.includes('--gnu')) {
  const tg = performance.now();
  execFileSync(
    'parallel',
    [
      '-j',
      String(parallel),
      'sleep',
      '0.05',
      ':::',
      ...Array.from({ length: attempts }, (_, i) => String(i)),
    ],
    { stdio: 'ignore' },
  );
  gnu = performance.now() - tg;
}
const t1 = performance.now();
await pool(attempts, parallel, async () => {
  const handle = await startAttempt(spec(['sleep', '0.05']));
  await handle.done;
});
const ours = performance.now() - t1;
const ideal = (attempts / parallel) * 50;
console.log(`attempts: ${attempts} x 50 ms agent, ${parallel}-way (ideal ${ideal.toFixed(0)} ms)`);
console.log(`  bare spawn pool   ${bare.toFixed(0)} ms`);
if (gnu !== undefined) console.log(`  GNU parallel      ${gnu.toFixed(0)} ms`);
console.log(
  `  switchyard runner ${ours.toFixed(0)} ms (${((ours - bare) / attempts).toFixed(1)} ms extra per attempt)`,
);
console.log(`  ratio vs bare     ${(ours / bare).toFixed(2)}`);
if (gnu !== undefined) console.log(`  ratio vs GNU      ${(ours / gnu).toFixed(2)} (goal <= 1.15)`);

// 2. CPU of the dispatcher while 32 agents stream
const streamers = 32;
const script =
  'let n = 0; const t = setInterval(() => { console.log("line " + n++ + " " + "x".repeat(100)); if (n === 250) clearInterval(t); }, 20);';
const cpu0 = process.cpuUsage();
const w0 = performance.now();
const handles = await Promise.all(
  Array.from({ length: streamers }, () => startAttempt(spec([process.execPath, '-e', script]))),
);
await Promise.all(handles.map((h) => h.done));
const wall = performance.now() - w0;
const cpu = process.cpuUsage(cpu0);
const pct = ((cpu.user + cpu.system) / 1000 / wall) * 100;
console.log(`streaming: ${streamers} agents x 250 lines over 5 s`);
console.log(
  `  dispatcher CPU    ${pct.toFixed(1)}% of one core over ${wall.toFixed(0)} ms (goal <= 3%; includes spawning)`,
);
rmSync(root, { recursive: true, force: true });
