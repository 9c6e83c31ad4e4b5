import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type PostgresCluster,
  postgresBin,
  startPostgresCluster,
} from '@switchyard/testkit/postgres';
import { afterAll, beforeAll } from 'vitest';
import { type RunResult, runCli, Workspace } from '../dispatcher/helpers.js';
import { git } from '../isolation/git-workspace.js';

// Several machines simulated on one host for the shared-store tests: a bare remote, and per
// machine its own clone of it (tracking origin/main) with the tasks.

/** Why the PostgreSQL tests are skipped here (no server installed), or undefined. */
export const pgMissing = (() => {
  try {
    postgresBin();
    return undefined;
  } catch (error) {
    return String(error);
  }
})();

/** A bare remote with a first commit on `main` (the dispatchers' own files ignored). */
export function bareRemote(dirs: string[]): string {
  const base = mkdtempSync(join(tmpdir(), 'sy-remote-'));
  dirs.push(base);
  const remote = join(base, 'remote.git');
  git(base, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = new Workspace();
  dirs.push(seed.dir);
  git(seed.dir, 'init', '-q', '-b', 'main');
  execFileSync(
    'sh',
    [
      '-c',
      `printf 'agent-task/\\n.catalog.json\\n.scenario-*\\nswitchyard.config.json\\n' > .gitignore && printf 'base\\n' > shared.txt`,
    ],
    { cwd: seed.dir },
  );
  const who = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];
  git(seed.dir, ...who, 'add', '-A');
  git(seed.dir, ...who, 'commit', '-q', '-m', 'init');
  git(seed.dir, 'push', '-q', remote, 'main');
  return remote;
}

/** A machine: its own clone of the remote (on `main`, tracking origin/main) with the tasks. */
export function machine(
  dirs: string[],
  remote: string,
  config: Record<string, unknown>,
  tasks: (ws: Workspace) => void,
): Workspace {
  const ws = new Workspace();
  dirs.push(ws.dir);
  git(ws.dir, 'init', '-q', '-b', 'main');
  git(ws.dir, 'config', 'user.name', 'Machine');
  git(ws.dir, 'config', 'user.email', 'machine@example.com');
  git(ws.dir, 'remote', 'add', 'origin', remote);
  git(ws.dir, 'fetch', '-q', 'origin');
  git(ws.dir, 'checkout', '-q', '-f', '-B', 'main', 'origin/main');
  git(ws.dir, 'branch', '-q', '--set-upstream-to=origin/main');
  ws.config(config);
  tasks(ws);
  return ws;
}

/** The environment of a machine's commands: no store named by the test's own environment. */
export const NO_STORE_ENV = { SWITCHYARD_STORE: '' };

/**
 * One cluster and one initialized database for the calling test file (`store init` run), and
 * the file's folders, removed after its tests.
 */
export function sharedDatabase(name: string) {
  const db = { cluster: undefined as PostgresCluster | undefined, url: '', dirs: [] as string[] };
  beforeAll(async () => {
    if (pgMissing) return;
    db.cluster = await startPostgresCluster();
    db.url = db.cluster.createDatabase(name);
    const init = await runCli(['store', 'init', '--store', db.url], { env: NO_STORE_ENV });
    if (init.code !== 0) throw new Error(init.stderr);
  }, 120_000);
  afterAll(() => {
    db.cluster?.stop();
    for (const dir of db.dirs) rmSync(dir, { recursive: true, force: true });
  });
  /** One SQL statement's rows, `|`-separated (psql -At). */
  const sql = (statement: string): string =>
    execFileSync(
      join((db.cluster as PostgresCluster).bin, 'psql'),
      [
        ...['-h', '127.0.0.1', '-p', String(db.cluster?.port), '-U', 'postgres', '-d', name],
        ...['-At', '-v', 'ON_ERROR_STOP=1', '-c', statement],
      ],
      { encoding: 'utf8' },
    ).trim();
  /** A workspace removed after the file's tests. */
  const workspace = (): Workspace => {
    const ws = new Workspace();
    db.dirs.push(ws.dir);
    return ws;
  };
  return {
    db,
    sql,
    workspace,
    bareRemote: () => bareRemote(db.dirs),
    machine: (remote: string, config: Record<string, unknown>) =>
      machine(db.dirs, remote, config, () => undefined),
  };
}

/** The JSON events a `--json` run printed, in order. */
export function jsonEvents(result: RunResult): Array<Record<string, unknown> & { type: string }> {
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
}

/** Commits of the remote's `main` by task (the Switchyard-Task trailer), oldest first. */
export function landed(remote: string): string[] {
  return git(
    remote,
    'log',
    '--reverse',
    '--format=%(trailers:key=Switchyard-Task,valueonly,separator=)',
    'main',
  )
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** The PIDs of a process and every descendant of it (from /proc): a machine's whole tree. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/** A fake-agent scenario: the worker of `task` appends `line` to `path` and ticks its checklist. */
export const appendingWorker = (task: string, path: string, line: string) => ({
  when: { role: 'worker', task },
  steps: [{ write: { path, content: line, append: true } }, { fillChecklist: true }],
});
