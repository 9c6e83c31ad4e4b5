// Set-up cost per task: `node test/bench/isolation-setup.mjs [rounds]` (after `pnpm build`;
// test/bench/isolation.mjs prints it too, after its life-cycle table). A JavaScript project of
// about 340 npm packages (express, lodash, dotenv; jest as a dev dependency), its checkout
// installed and its `.env` present, as a user's is. Per round, one new task worktree through
// @switchyard/git-isolation with config `isolation: { copy: [".env"], setup: [["npm", "ci",
// "--prefer-offline", …]] }` (create the worktree and copy the ignored file, run the set-up
// command as the dispatcher does: argv, no shell, output to a log file; mark it set up) vs the
// same by hand (`git worktree add`, `cp .env`, the same `npm ci`), in lockstep, who goes first
// alternating, then both removed. Goal: ratio <= 1.3 (median of the rounds): switchyard adds
// little to what the package manager costs. Also printed: the disk one set-up worktree takes
// (what `status` shows). The same again with pnpm (`pnpm install --frozen-lockfile
// --prefer-offline` from one store): npm copies every package into each worktree, pnpm
// hard-links them from its store (counted as shared), so the two tables side by side are the
// README's "shared dependency stores" advice measured.
// npm's cache and pnpm's store (the shared stores every worktree installs from) and the resolved
// lockfiles are kept in `$SWITCHYARD_BENCH_CACHE` (default ~/.cache/switchyard-bench): the first
// run fills them from the npm registry, later runs install offline from them.
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PACKAGE = {
  name: 'bench-app',
  version: '1.0.0',
  private: true,
  dependencies: { dotenv: '16.4.7', express: '4.21.2', lodash: '4.17.21' },
  devDependencies: { jest: '29.7.0' },
};
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];
// The repository's own pinned pnpm (a bench run by `node` directly has no pnpm on PATH).
const repoPnpm = new URL('../../node_modules/.bin/pnpm', import.meta.url).pathname;
const PNPM = existsSync(repoPnpm) ? repoPnpm : 'pnpm';

/** Each package manager's way: resolve the lockfile once, install from the shared store. */
const MANAGERS = {
  npm: {
    lockfile: 'package-lock.json',
    resolve: ['npm', 'install', '--package-lock-only', ...NPM_FLAGS],
    setup: [['npm', 'ci', ...NPM_FLAGS]],
    env: (cache) => ({ npm_config_cache: join(cache, 'npm-cache') }),
    disk: 'npm copies every package into each worktree; N worktrees take N times this',
  },
  pnpm: {
    lockfile: 'pnpm-lock.yaml',
    resolve: [PNPM, 'install', '--lockfile-only'],
    setup: [[PNPM, 'install', '--frozen-lockfile', '--prefer-offline']],
    env: (cache) => ({
      npm_config_cache: join(cache, 'npm-cache'),
      npm_config_store_dir: join(cache, 'pnpm-store'),
    }),
    disk: "pnpm hard-links every file from its store: a worktree's own share is only its links",
  },
};

const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

/** Runs argv without a shell, its output to `log`; rejects on a non-zero exit. */
function run(argv, cwd, log, env) {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(log);
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('error', reject);
    child.on('close', (code) => {
      out.end();
      if (code === 0) resolve();
      else reject(new Error(`${argv.join(' ')} exited ${code} in ${cwd} (output: ${log})`));
    });
  });
}

/** The project, committed, its checkout installed (filling the store), with its ignored `.env`. */
async function makeProject(dir, cache, env, name) {
  const manager = MANAGERS[name];
  const key = JSON.stringify(PACKAGE);
  const lockDir = join(cache, `${name}-project`);
  mkdirSync(lockDir, { recursive: true });
  const manifest = `${JSON.stringify(PACKAGE, null, 2)}\n`;
  writeFileSync(join(dir, 'package.json'), manifest);
  const lock = join(lockDir, manager.lockfile);
  const keyFile = join(lockDir, 'package.json');
  const known = existsSync(lock) && existsSync(keyFile);
  if (!known || JSON.stringify(JSON.parse(readFileSync(keyFile, 'utf8'))) !== key) {
    // Resolved once (from the registry), then reused: every run installs the same tree.
    await run(manager.resolve, dir, join(dir, '..', 'lock.log'), env);
    copyFileSync(join(dir, manager.lockfile), lock);
    writeFileSync(keyFile, manifest);
  } else copyFileSync(lock, join(dir, manager.lockfile));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Bench');
  git(dir, 'config', 'user.email', 'bench@example.com');
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n.env\nagent-task/\n');
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    join(dir, 'src', 'app.js'),
    "require('dotenv').config();\nmodule.exports = require('express')();\n",
  );
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'app');
  for (const argv of manager.setup)
    await run(argv, dir, join(dir, '..', 'source-install.log'), env);
  writeFileSync(join(dir, '.env'), 'API_URL=http://localhost:8080\n');
  if (name === 'pnpm')
    return readdirSync(join(dir, 'node_modules', '.pnpm')).filter((d) => d.includes('@')).length;
  const lockfile = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  return Object.keys(lockfile.packages).filter((p) => p !== '').length;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Measures and prints the set-up cost per task with npm, then pnpm (see the comment at the top). */
export async function benchSetup(rounds = 3) {
  for (const name of Object.keys(MANAGERS)) await benchManager(name, rounds);
}

/** One package manager's table. */
async function benchManager(name, rounds) {
  const { setup: SETUP, ...manager } = MANAGERS[name];
  const cache = process.env.SWITCHYARD_BENCH_CACHE ?? join(homedir(), '.cache', 'switchyard-bench');
  const env = { ...process.env, ...manager.env(cache), npm_config_update_notifier: 'false' };
  const base = mkdtempSync(join(tmpdir(), 'sy-bench-setup-'));
  const source = join(base, 'app');
  mkdirSync(source);
  try {
    const t = performance.now();
    const packages = await makeProject(source, cache, env, name);
    const prepared = performance.now() - t;
    const { openGitIsolation } = await import(
      new URL('../../packages/git-isolation/dist/index.js', import.meta.url).href
    );
    const { openFsStore } = await import(
      new URL('../../packages/store-fs/dist/index.js', import.meta.url).href
    );
    const isolation = await openGitIsolation(source, {
      store: openFsStore({ workspace: source }),
      worktreesDir: join(base, 'worktrees'),
      copy: ['.env'],
    });
    const logs = join(base, 'logs');
    mkdirSync(logs);
    const viaSwitchyard = async (round) => {
      const taskId = `bench/s${round}`;
      const record = await isolation.ensureWorktree(taskId);
      for (const [i, argv] of SETUP.entries())
        await run(argv, record.workdir, join(logs, `s${round}.${i + 1}.log`), {
          ...env,
          SWITCHYARD_TASK: taskId,
          SWITCHYARD_SOURCE_WORKSPACE: source,
        });
      await isolation.markSetUp(taskId);
      if (!existsSync(join(record.workdir, '.env'))) throw new Error('.env was not copied');
      return {
        remove: () => isolation.removeWorktree(taskId),
        disk: () => isolation.diskUse(taskId),
      };
    };
    const byHand = async (round) => {
      const path = join(base, 'hand', `h${round}`);
      git(source, 'worktree', 'add', '-q', '-b', `hand/h${round}`, path, 'main');
      copyFileSync(join(source, '.env'), join(path, '.env'));
      for (const [i, argv] of SETUP.entries())
        await run(argv, path, join(logs, `h${round}.${i + 1}.log`), env);
      return {
        remove: async () => {
          git(source, 'worktree', 'remove', '--force', path);
          git(source, 'branch', '-q', '-D', `hand/h${round}`);
        },
      };
    };
    const rows = [];
    let disk;
    for (let round = 0; round < rounds; round++) {
      const times = [{}, {}];
      const made = [];
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const who of order) {
        const began = performance.now();
        made[who] = await [viaSwitchyard, byHand][who](round);
        times[who].setup = performance.now() - began;
      }
      disk ??= await made[0].disk();
      for (const who of order) {
        const began = performance.now();
        await made[who].remove();
        times[who].remove = performance.now() - began;
      }
      rows.push(times);
    }
    console.log(
      `set-up per task (${name}): a project of ${packages} npm packages, ${SETUP.map((c) => [basename(c[0]), ...c.slice(1)].join(' ')).join(' && ')} from a warm shared store, + copy .env; ${rounds} rounds, median ms (project prepared in ${(prepared / 1000).toFixed(0)} s)`,
    );
    console.log('  phase                         switchyard   by hand   ratio');
    const row = (label, key) => {
      const a = median(rows.map((r) => r[0][key]));
      const b = median(rows.map((r) => r[1][key]));
      console.log(
        `  ${label.padEnd(29)} ${a.toFixed(0).padStart(10)} ${b.toFixed(0).padStart(9)}   ${(a / b).toFixed(2).padStart(5)}`,
      );
      return a / b;
    };
    const ratio = row('create + copy + set-up', 'setup');
    row('remove', 'remove');
    console.log(`  set-up ratio ${ratio.toFixed(2)} (goal <= 1.3)`);
    console.log(
      `  disk of one set-up worktree: ${mib(disk.bytes)} own, ${mib(disk.sharedBytes)} shared through hard links (${manager.disk})`,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await benchSetup(Number(process.argv[2] ?? 3));
