#!/usr/bin/env node
// The dispatch benchmark on the PostgreSQL store (issue 26). Run from the repo root after
// `pnpm build`:
//   node_modules/.bin/node test/bench/dispatch-store.mjs [--tasks 12] [--parallel 2] [--keep]
//     [--verbose]   (each run's JSONL events on stdout)
// `--tasks` independent tasks (each a worker and a review by the 50 ms POSIX sh agent of the
// dispatch bench), in git clones of one bare remote (a shared store needs worktree isolation,
// so the baseline has it too), timed in the same run:
//   1. the file store: one `switchyard run` in one clone (the baseline; commits land on the
//      clone's branch);
//   2. the PostgreSQL store, one dispatcher: `run --store` in a clone (each task also pushed to
//      the remote through the shared apply queue);
//   3. the PostgreSQL store, three dispatchers: `run --store` in three clones at once.
// Each side at `--parallel` task stages per dispatcher. It prints the wall time of each, the
// time per task and the ratios to the file store. It starts a throw-away PostgreSQL cluster
// (like the tests: a temp folder, fsync off, removed at the end) and exits 1 with how to
// install PostgreSQL when no server is installed. None of it fails a build.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeDispatchWorkspace } from './dispatch-workspace.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const CLI = join(root, 'packages/cli/dist/bin.js');
const AGENT = join(here, 'dispatch-agent.sh');

const { values: opts } = parseArgs({
  options: {
    tasks: { type: 'string', default: '12' },
    parallel: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const TASKS = Number(opts.tasks);
const J = Number(opts.parallel);

if (!existsSync(CLI)) {
  console.error(`${CLI} is missing: run \`pnpm build\` first`);
  process.exit(1);
}
const testkit = join(root, 'packages/testkit/dist/postgres.js');
const { postgresBin, startPostgresCluster } = await import(testkit);
try {
  postgresBin();
} catch (error) {
  console.error(
    `PostgreSQL is missing, so the PostgreSQL store cannot be measured: ${error instanceof Error ? error.message : error}\n` +
      'Install the server (Debian: `apt-get install -y postgresql`; `.ci/run` does it), or point SWITCHYARD_PG_BIN at its bin folder.',
  );
  process.exit(1);
}

const dirs = [];
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const env = {
  ...process.env,
  NO_COLOR: '1',
  SWITCHYARD_STORE: '',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/** A bare remote with a first commit on `main` (switchyard's own files ignored). */
function bareRemote() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sy-bench-remote-')));
  dirs.push(base);
  const remote = join(base, 'remote.git');
  git(base, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = join(base, 'seed');
  git(base, 'init', '-q', '-b', 'main', seed);
  writeFileSync(
    join(seed, '.gitignore'),
    'agent-task/\nbench-catalog.json\nswitchyard.config.json\n',
  );
  // the agents write src/<task>.txt: the folder is in every worktree
  mkdirSync(join(seed, 'src'));
  writeFileSync(join(seed, 'src', '.keep'), '');
  git(seed, '-c', 'user.name=B', '-c', 'user.email=b@example.com', 'add', '-A');
  git(seed, '-c', 'user.name=B', '-c', 'user.email=b@example.com', 'commit', '-q', '-m', 'init');
  git(seed, 'push', '-q', remote, 'main');
  return remote;
}

/** A machine: its own clone of the remote (tracking origin/main) with the bench's tasks. */
function clone(remote) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sy-bench-clone-')));
  dirs.push(dir);
  git(dir, 'clone', '-q', remote, '.');
  git(dir, 'config', 'user.name', 'Bench');
  git(dir, 'config', 'user.email', 'bench@example.com');
  return writeDispatchWorkspace(dir, TASKS, ['/bin/sh', AGENT]);
}

/** One `switchyard run`; resolves with its exit code. */
function run(ws, extra) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...[CLI, 'run', '--workspace', ws.dir, '--execution-catalog', ws.catalog],
        ...['--max-parallel', String(J), '--json', ...extra],
      ],
      { env, stdio: ['ignore', opts.verbose ? 'pipe' : 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    if (opts.verbose) child.stdout?.pipe(process.stdout);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(code) : reject(new Error(`run exited ${code}: ${stderr}`)),
    );
  });
}

/** Times `fn`; checks that every task landed once on `branchOf()`. */
async function timed(label, fn, landedOn) {
  const started = process.hrtime.bigint();
  await fn();
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const landed = git(
    landedOn.dir,
    'log',
    '--format=%(trailers:key=Switchyard-Task,valueonly)',
    landedOn.ref,
  )
    .split('\n')
    .filter((l) => l.trim()).length;
  if (landed !== TASKS) throw new Error(`${label}: ${landed} of ${TASKS} tasks landed`);
  console.log(
    `${label.padEnd(34)} ${(wallMs / 1000).toFixed(1).padStart(7)} s  ${(wallMs / TASKS).toFixed(0).padStart(6)} ms/task`,
  );
  return wallMs;
}

const cluster = await startPostgresCluster();
try {
  console.log(
    `dispatch on the stores: ${TASKS} tasks (worker + review, 50 ms sh agent), --max-parallel ${J} per dispatcher, worktree isolation`,
  );
  // A database per PostgreSQL scenario, its schema created once.
  const storeUrl = async (name) => {
    const url = cluster.createDatabase(name);
    execFileSync(process.execPath, [CLI, 'store', 'init', '--store', url], {
      env,
      stdio: 'ignore',
    });
    return url;
  };
  const fileClone = clone(bareRemote());
  const file = await timed('file store, 1 dispatcher', () => run(fileClone, []), {
    dir: fileClone.dir,
    ref: 'main',
  });
  const oneUrl = await storeUrl('one');
  const oneRemote = bareRemote();
  const oneClone = clone(oneRemote);
  const one = await timed('postgres, 1 dispatcher', () => run(oneClone, ['--store', oneUrl]), {
    dir: oneRemote,
    ref: 'main',
  });
  const threeUrl = await storeUrl('three');
  const threeRemote = bareRemote();
  const machines = [clone(threeRemote), clone(threeRemote), clone(threeRemote)];
  const three = await timed(
    'postgres, 3 dispatchers (3 clones)',
    () => Promise.all(machines.map((ws) => run(ws, ['--store', threeUrl]))),
    { dir: threeRemote, ref: 'main' },
  );
  console.log(`\nratio postgres 1 dispatcher / file store:   ${(one / file).toFixed(2)}`);
  console.log(`ratio postgres 3 dispatchers / file store:  ${(three / file).toFixed(2)}`);
  console.log(
    '(wall time; the PostgreSQL side also pushes every task to the remote through the shared apply queue)',
  );
} finally {
  cluster.stop();
  if (!opts.keep) for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept: ${dirs.join(' ')}`);
}
