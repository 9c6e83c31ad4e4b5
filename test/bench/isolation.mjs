// Isolation overhead benchmark: `node test/bench/isolation.mjs [files] [rounds]` (after
// `pnpm build`). On a repository of 10,000 files, one task's isolation life cycle through
// @switchyard/git-isolation (create the worktree, diff it against the write set, commit,
// apply onto the source branch, remove) vs the same git commands run by hand, measured in
// the same run, rounds alternating. Goal: ratio <= 1.3 (total, median of the rounds).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { openGitIsolation } = await import(
  new URL('../../packages/git-isolation/dist/index.js', import.meta.url).href
);

const fileCount = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 5);
const root = mkdtempSync(join(tmpdir(), 'sy-bench-isolation-'));
const handDir = mkdtempSync(join(tmpdir(), 'sy-bench-isolation-hand-'));
const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

// the repository: fileCount files in 100 folders, one commit
git(root, 'init', '-q', '-b', 'main');
git(root, 'config', 'user.name', 'Bench');
git(root, 'config', 'user.email', 'bench@example.com');
for (let d = 0; d < 100; d++) {
  mkdirSync(join(root, 'src', `d${d}`), { recursive: true });
  for (let f = 0; f < fileCount / 100; f++)
    writeFileSync(
      join(root, 'src', `d${d}`, `f${f}.js`),
      `export const v${f} = ${d * 1000 + f};\n`,
    );
}
git(root, 'add', '-A');
git(root, 'commit', '-q', '-m', 'initial');
const isolation = await openGitIsolation(root);

const phases = ['create', 'diff', 'apply', 'remove'];
const timed = async (sink, phase, work) => {
  const t = performance.now();
  await work();
  sink[phase] = (sink[phase] ?? 0) + performance.now() - t;
};

async function viaSwitchyard(round) {
  const taskId = `bench/t${round}`;
  const file = `src/d${round % 100}/f0.js`;
  const times = {};
  let record;
  await timed(times, 'create', async () => {
    record = await isolation.ensureWorktree(taskId);
  });
  writeFileSync(join(record.workdir, file), `export const changed = ${round};\n`);
  let report;
  await timed(times, 'diff', async () => {
    report = await isolation.inspect(taskId, [file]);
  });
  if (report.outside.length > 0 || report.empty) throw new Error('unexpected diff');
  // commit + apply are one call (apply commits the worktree first)
  let result;
  await timed(times, 'apply', async () => {
    result = await isolation.apply({
      taskId,
      title: `bench ${round}`,
      targets: ['bench'],
      attempts: 1,
      writeSet: [file],
    });
  });
  if (result.status !== 'applied') throw new Error(`apply: ${JSON.stringify(result)}`);
  await timed(times, 'remove', () => isolation.removeWorktree(taskId));
  return times;
}

function byHand(round) {
  const branch = `hand/t${round}`;
  const path = join(handDir, `t${round}`);
  const file = `src/d${round % 100}/f1.js`;
  const times = {};
  const t = (phase, work) => {
    const start = performance.now();
    work();
    times[phase] = (times[phase] ?? 0) + performance.now() - start;
  };
  t('create', () => git(root, 'worktree', 'add', '-q', '-b', branch, path, 'main'));
  writeFileSync(join(path, file), `export const changed = ${round};\n`);
  t('diff', () => {
    git(path, 'diff', '--name-only', 'main');
    git(path, 'ls-files', '--others', '--exclude-standard');
  });
  t('apply', () => {
    git(path, 'add', '-A');
    git(path, 'commit', '-q', '-m', `hand ${round}`);
    git(root, 'status', '--porcelain', '--', file);
    git(root, 'merge', '-q', '--ff-only', branch);
  });
  t('remove', () => {
    git(root, 'worktree', 'remove', path);
    git(root, 'branch', '-q', '-D', branch);
  });
  return times;
}

const ours = [];
const hand = [];
// one warm-up of each (page cache, git's untracked cache), not counted
await viaSwitchyard(1000);
byHand(1000);
for (let round = 0; round < rounds; round++) {
  if (round % 2 === 0) {
    ours.push(await viaSwitchyard(round));
    hand.push(byHand(round));
  } else {
    hand.push(byHand(round));
    ours.push(await viaSwitchyard(round));
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const total = (times) => Object.values(times).reduce((a, b) => a + b, 0);
console.log(`repository: ${fileCount} files; ${rounds} rounds, median ms per task`);
console.log('  phase     switchyard   by hand   ratio');
for (const phase of phases) {
  const a = median(ours.map((t) => t[phase]));
  const b = median(hand.map((t) => t[phase]));
  const label = phase === 'apply' ? 'commit+apply' : phase;
  console.log(
    `  ${label.padEnd(12)} ${a.toFixed(0).padStart(7)} ${b.toFixed(0).padStart(9)}   ${(a / b).toFixed(2)}`,
  );
}
const a = median(ours.map(total));
const b = median(hand.map(total));
console.log(
  `  ${'total'.padEnd(12)} ${a.toFixed(0).padStart(7)} ${b.toFixed(0).padStart(9)}   ${(a / b).toFixed(2)} (goal <= 1.3)`,
);
rmSync(root, { recursive: true, force: true });
rmSync(handDir, { recursive: true, force: true });
