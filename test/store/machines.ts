import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

// Several machines on one backlog, simulated on one host: each machine is a clone of one bare
// remote with its own dispatcher; they share one PostgreSQL (a fresh cluster per test file, as
// the `postgres` user when root). Skipped only where no PostgreSQL server is installed.

/** Why the PostgreSQL tests are skipped here, or undefined when a server is installed. */
export const pgMissing = (() => {
  try {
    postgresBin();
    return undefined;
  } catch (error) {
    return String(error);
  }
})();

/** One cluster and one initialized database for the calling test file, removed after it. */
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
  /** A temp folder removed after the file's tests. */
  const temp = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    db.dirs.push(dir);
    return dir;
  };
  /** A workspace removed after the file's tests. */
  const workspace = (): Workspace => {
    const ws = new Workspace();
    db.dirs.push(ws.dir);
    return ws;
  };
  /** A bare remote with a first commit on `main` (the dispatchers' own files ignored). */
  const bareRemote = (): string => {
    const remote = join(temp('sy-remote-'), 'remote.git');
    git(tmpdir(), 'init', '-q', '--bare', '-b', 'main', remote);
    const seed = workspace();
    git(seed.dir, 'init', '-q', '-b', 'main');
    execFileSync(
      'sh',
      [
        '-c',
        `printf 'agent-task/\\n.catalog.json\\n.scenario-*\\nswitchyard.config.json\\n' > .gitignore && printf 'base\\n' > shared.txt`,
      ],
      { cwd: seed.dir },
    );
    const as = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];
    git(seed.dir, ...as, 'add', '-A');
    git(seed.dir, ...as, 'commit', '-q', '-m', 'init');
    git(seed.dir, 'push', '-q', remote, 'main');
    return remote;
  };
  /** A machine: its own clone of the remote (on `main`, tracking origin/main), configured. */
  const machine = (remote: string, config: Record<string, unknown>): Workspace => {
    const ws = workspace();
    git(ws.dir, 'init', '-q', '-b', 'main');
    git(ws.dir, 'config', 'user.name', 'Machine');
    git(ws.dir, 'config', 'user.email', 'machine@example.com');
    git(ws.dir, 'remote', 'add', 'origin', remote);
    git(ws.dir, 'fetch', '-q', 'origin');
    git(ws.dir, 'checkout', '-q', '-f', '-B', 'main', 'origin/main');
    git(ws.dir, 'branch', '-q', '--set-upstream-to=origin/main');
    ws.config(config);
    return ws;
  };
  return { db, sql, temp, workspace, bareRemote, machine };
}

/** The environment of a machine's commands: no store named by the test's own environment. */
export const NO_STORE_ENV = { SWITCHYARD_STORE: '' };

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
