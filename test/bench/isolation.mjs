// Isolation overhead benchmark: `node test/bench/isolation.mjs [files] [rounds] [queued]
// [setup rounds]` (after `pnpm build`). On a repository of 10,000 files, one task's isolation life cycle through
// @switchyard/git-isolation (create the worktree, diff it against the write set, commit,
// apply onto the source branch, remove) vs the same git commands run by hand, measured in
// the same run. The two work on identical copies of the repository, so they can run in
// lockstep: each phase runs once each way back to back, alternating which goes first, and
// both see the same load (the machine is shared; a worktree of 10,000 files takes from
// 0.5 s to 15 s depending on what else runs). Goal: ratio <= 1.3 (total, median of the rounds).
// Also printed: CPU time (this process and its git children, from /proc) per phase; where one
// apply's time goes (inspect, wait, journal, commit, replay, advance, finish: the spans
// git-isolation reports through `onTiming`), goal <= 500 ms for a one-file apply; and a queue
// of approved tasks applied at once (as a dispatcher with a backlog does): wall and CPU per
// apply, which must stay flat (they wait on a promise, not by polling the lock file). Last, the
// set-up cost per task on a project of ~340 npm packages vs the same by hand, goal ratio <= 1.3
// (./isolation-setup.mjs; `[setup rounds]` 0 leaves it out).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { openGitIsolation } = await import(
  new URL('../../packages/git-isolation/dist/index.js', import.meta.url).href
);
const { openFsStore } = await import(
  new URL('../../packages/store-fs/dist/index.js', import.meta.url).href
);

const fileCount = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 5);
const root = mkdtempSync(join(tmpdir(), 'sy-bench-isolation-'));
const handRoot = mkdtempSync(join(tmpdir(), 'sy-bench-isolation-hand-repo-'));
// Both sides' worktrees in one folder: the ratio is switchyard's own cost, not the folder's (on
// a loaded machine the same `git worktree add` of 10,000 files took from 1 to 5 times as long
// under ~/.cache as under /tmp, and the default place is ~/.cache/switchyard/worktrees).
const worktreesRoot = mkdtempSync(join(tmpdir(), 'sy-bench-isolation-worktrees-'));
const handDir = join(worktreesRoot, 'hand');
const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

// the repository: fileCount files in 100 folders, one commit; built twice the same way (the
// by-hand twin has its own objects, refs and index)
function makeRepository(dir) {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Bench');
  git(dir, 'config', 'user.email', 'bench@example.com');
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(dir, 'src', `d${d}`), { recursive: true });
    for (let f = 0; f < fileCount / 100; f++)
      writeFileSync(
        join(dir, 'src', `d${d}`, `f${f}.js`),
        `export const v${f} = ${d * 1000 + f};\n`,
      );
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  // Packed now and no automatic gc later: a commit past gc.auto's 6,700 loose objects starts a
  // detached `git gc` that packs the repository while the next rounds are timed (seen here as
  // a `worktree add` of either side taking 0.2x to 1.5x the other from one run to the next).
  git(dir, 'config', 'gc.auto', '0');
  git(dir, 'config', 'maintenance.auto', 'false');
  git(dir, 'repack', '-adq');
}
makeRepository(root);
makeRepository(handRoot);
// Each apply's spans (git-isolation's `onTiming`), collected per apply call.
let spans = {};
const isolation = await openGitIsolation(root, {
  store: openFsStore({ workspace: root }),
  worktreesDir: join(worktreesRoot, 'switchyard'),
  onTiming: (span, ms) => {
    spans[span] = (spans[span] ?? 0) + ms;
  },
});
const applySpans = [];

const phases = ['create', 'diff', 'apply', 'remove'];

// CPU ms of this process and its finished children (Linux /proc; undefined elsewhere).
const cpuMs = () => {
  if (!existsSync('/proc/self/stat')) return undefined;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]); // cutime + cstime, 1/100 s
  const self = process.cpuUsage();
  return (self.user + self.system) / 1000 + ticks * 10;
};
const timed = async (sink, phase, work) => {
  // The other side's phase just wrote or deleted 10,000 files: flush that first, so neither side
  // is timed paying for the other's writeback.
  execFileSync('sync');
  const cpu = cpuMs();
  const t = performance.now();
  await work();
  sink[phase] = performance.now() - t;
  if (cpu !== undefined) sink[`cpu:${phase}`] = cpuMs() - cpu;
};

/** One task through @switchyard/git-isolation, as the dispatcher drives it. */
function viaSwitchyard(round) {
  const taskId = `bench/t${round}`;
  const file = `src/d${round % 100}/f0.js`;
  let record;
  return {
    create: async () => {
      record = await isolation.ensureWorktree(taskId);
      writeFileSync(join(record.workdir, file), `export const changed = ${round};\n`);
    },
    diff: async () => {
      const report = await isolation.inspect(taskId, [file]);
      if (report.outside.length > 0 || report.empty) throw new Error('unexpected diff');
    },
    // commit + apply are one call (apply commits the worktree first)
    apply: async () => {
      spans = {};
      const result = await isolation.apply({
        taskId,
        title: `bench ${round}`,
        targets: ['bench'],
        attempts: 1,
        writeSet: [file],
      });
      if (result.status !== 'applied') throw new Error(`apply: ${JSON.stringify(result)}`);
      if (round < 1000) applySpans.push(spans);
    },
    remove: () => isolation.removeWorktree(taskId),
  };
}

/**
 * The same work by hand: worktree add with checkout, diff + untracked files, add + commit,
 * the dirty check of the task's file in the source and a fast-forward merge onto the tip,
 * worktree remove + branch delete. What it leaves out that switchyard does for safety is
 * printed under the table.
 */
function byHand(round) {
  const branch = `hand/t${round}`;
  const path = join(handDir, `t${round}`);
  const file = `src/d${round % 100}/f0.js`;
  return {
    create: async () => {
      git(handRoot, 'worktree', 'add', '-q', '-b', branch, path, 'main');
      writeFileSync(join(path, file), `export const changed = ${round};\n`);
    },
    diff: async () => {
      git(path, 'diff', '--name-only', 'main');
      git(path, 'ls-files', '--others', '--exclude-standard');
    },
    apply: async () => {
      git(path, 'add', '-A');
      git(path, 'commit', '-q', '-m', `hand ${round}`);
      git(handRoot, 'status', '--porcelain', '--', file);
      git(handRoot, 'merge', '-q', '--ff-only', branch);
    },
    remove: async () => {
      git(handRoot, 'worktree', 'remove', path);
      git(handRoot, 'branch', '-q', '-D', branch);
    },
  };
}

/** One round: both life cycles in lockstep, each phase back to back, who goes first alternating. */
async function round(index, sinks) {
  const ours = viaSwitchyard(index);
  const hand = byHand(index);
  const times = [{}, {}];
  for (const [i, phase] of phases.entries()) {
    const order = (index + i) % 2 === 0 ? [0, 1] : [1, 0];
    for (const who of order) await timed(times[who], phase, [ours, hand][who][phase]);
  }
  if (sinks) {
    sinks[0].push(times[0]);
    sinks[1].push(times[1]);
  }
}

const ours = [];
const hand = [];
// one warm-up round (page cache, git's untracked cache), not counted
await round(1000);
for (let index = 0; index < rounds; index++) await round(index, [ours, hand]);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const sum = (times, prefix) =>
  phases.reduce((total, phase) => total + (times[`${prefix}${phase}`] ?? 0), 0);
console.log(`repository: ${fileCount} files; ${rounds} rounds, median ms per task`);
console.log('  phase        switchyard   by hand   ratio   | cpu: switchyard   by hand   ratio');
const row = (label, a, b, ca, cb) =>
  console.log(
    `  ${label.padEnd(12)} ${a.toFixed(0).padStart(9)} ${b.toFixed(0).padStart(9)}   ${(a / b).toFixed(2).padStart(5)}   |${ca === undefined ? '' : ` ${ca.toFixed(0).padStart(14)} ${cb.toFixed(0).padStart(9)}   ${(ca / cb).toFixed(2).padStart(5)}`}`,
  );
const hasCpu = ours[0]['cpu:create'] !== undefined;
for (const phase of phases)
  row(
    phase === 'apply' ? 'commit+apply' : phase,
    median(ours.map((t) => t[phase])),
    median(hand.map((t) => t[phase])),
    hasCpu ? median(ours.map((t) => t[`cpu:${phase}`])) : undefined,
    hasCpu ? median(hand.map((t) => t[`cpu:${phase}`])) : undefined,
  );
const a = median(ours.map((t) => sum(t, '')));
const b = median(hand.map((t) => sum(t, '')));
row(
  'total',
  a,
  b,
  hasCpu ? median(ours.map((t) => sum(t, 'cpu:'))) : undefined,
  hasCpu ? median(hand.map((t) => sum(t, 'cpu:'))) : undefined,
);
console.log(`  total ratio ${(a / b).toFixed(2)} (goal <= 1.3)`);
console.log(
  [
    '  by hand leaves out what switchyard needs for safety: the worktree record written before',
    "  git is asked, the check of the worktree's .git link and branch before diffing, the write-set",
    '  check again at apply (review agents ran in the worktree since), the apply lock, the journal',
    "  and the records (three fsyncs in all), the compare-and-swap of the source branch and a restore of only the task's files",
  ].join('\n'),
);

// Where one apply's time goes (median ms per span over the rounds).
const spanNames = ['inspect', 'wait', 'journal', 'commit', 'replay', 'advance', 'check', 'finish'];
const applyTotal = median(applySpans.map((t) => Object.values(t).reduce((a, b) => a + b, 0)));
console.log(`one-file apply (commit+apply), median ms by span (goal: total <= 500):`);
console.log(
  `  ${spanNames
    .filter((n) => applySpans.some((t) => t[n] !== undefined))
    .map((n) => `${n} ${median(applySpans.map((t) => t[n] ?? 0)).toFixed(0)}`)
    .join(
      ' · ',
    )} · total ${applyTotal.toFixed(0)} (${applyTotal <= 500 ? 'within' : 'over'} the goal)`,
);

// A queue: `queued` approved tasks apply at once, as a dispatcher with a backlog starts them.
const queued = Number(process.argv[4] ?? 20);
const queue = [];
for (let i = 0; i < queued; i++) {
  const taskId = `bench/q${i}`;
  const file = `src/d${(i + 50) % 100}/f1.js`;
  const record = await isolation.ensureWorktree(taskId);
  writeFileSync(join(record.workdir, file), `export const queued = ${i};\n`);
  queue.push({ taskId, file });
}
const cpuBefore = cpuMs();
const queueStart = performance.now();
spans = {};
const results = await Promise.all(
  queue.map(({ taskId, file }) =>
    isolation.apply({ taskId, title: taskId, targets: ['bench'], attempts: 1, writeSet: [file] }),
  ),
);
const queueWall = performance.now() - queueStart;
const queueCpu = cpuBefore === undefined ? undefined : cpuMs() - cpuBefore;
if (results.some((r) => r.status !== 'applied')) throw new Error('a queued apply did not land');
console.log(
  `queue of ${queued} approved tasks applied at once: ${(queueWall / queued).toFixed(0)} ms wall per apply${
    queueCpu === undefined ? '' : `, ${(queueCpu / queued).toFixed(0)} ms CPU per apply`
  } (spans summed over the queue, ms: ${spanNames
    .filter((n) => spans[n] !== undefined)
    .map((n) => `${n} ${spans[n].toFixed(0)}`)
    .join(' · ')})`,
);
for (const { taskId } of queue) await isolation.removeWorktree(taskId);

rmSync(root, { recursive: true, force: true });
rmSync(handRoot, { recursive: true, force: true });
rmSync(worktreesRoot, { recursive: true, force: true });

const setupRounds = Number(process.argv[5] ?? 3);
if (setupRounds > 0) {
  const { benchSetup } = await import('./isolation-setup.mjs');
  await benchSetup(setupRounds);
}
