import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type PostgresCluster,
  postgresBin,
  startPostgresCluster,
} from '@switchyard/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVE, type RunResult, runCli, Workspace } from '../dispatcher/helpers.js';
import { git, until } from '../isolation/git-workspace.js';

// Several machines on one backlog, simulated on one host: dispatchers on their own clones of
// one bare remote, one PostgreSQL (a fresh cluster for this file, as the `postgres` user when
// root). Skipped only where no PostgreSQL server is installed (CI installs it).
const pgMissing = (() => {
  try {
    postgresBin();
    return undefined;
  } catch (error) {
    return String(error);
  }
})();
if (pgMissing) console.warn(`skipping the shared-backlog tests: ${pgMissing}`);

let cluster: PostgresCluster;
let url = '';
const dirs: string[] = [];
beforeAll(async () => {
  if (pgMissing) return;
  cluster = await startPostgresCluster();
  url = cluster.createDatabase('shared');
  const init = await runCli(['store', 'init', '--store', url], { env: { SWITCHYARD_STORE: '' } });
  if (init.code !== 0) throw new Error(init.stderr);
}, 120_000);
afterAll(() => {
  cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sql = (statement: string): string =>
  execFileSync(
    join(cluster.bin, 'psql'),
    [
      ...['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'shared'],
      ...['-At', '-v', 'ON_ERROR_STOP=1', '-c', statement],
    ],
    { encoding: 'utf8' },
  ).trim();

/** A bare remote with a first commit on `main` (the dispatchers' own files ignored). */
function bareRemote(): string {
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
  git(seed.dir, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'add', '-A');
  git(
    seed.dir,
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.com',
    'commit',
    '-q',
    '-m',
    'init',
  );
  git(seed.dir, 'push', '-q', remote, 'main');
  return remote;
}

/** A machine: its own clone of the remote (on `main`, tracking origin/main) with the tasks. */
function machine(
  remote: string,
  config: Record<string, unknown>,
  tasks: (ws: Workspace) => void = fourTasks,
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

function fourTasks(ws: Workspace): void {
  ws.task('g/a', { files: ['a.txt'] });
  ws.task('g/b', { files: ['shared.txt'] });
  ws.task('g/c', { files: ['shared.txt', 'c.txt'], dependsOn: ['a'] });
  ws.task('g/d', { files: ['d.txt'] });
}

/** The PIDs of a process and every descendant of it (from /proc). */
function processTree(root: number): number[] {
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

/** Commits of the remote's `main` by task (the Switchyard-Task trailer), oldest first. */
function landed(remote: string): string[] {
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

/** A worker that writes its flag, then waits for the other's, then writes its line. */
const meet = (task: string, path: string, flags: string, mine: string, other: string) => ({
  when: { role: 'worker', task },
  steps: [
    { write: { path: `${flags}-${mine}`, content: 'here' } },
    { waitFor: `${flags}-${other}` },
    { write: { path, content: `${mine}\n`, append: true } },
    { fillChecklist: true },
  ],
});

const write = (task: string, path: string, line: string) => ({
  when: { role: 'worker', task },
  steps: [{ write: { path, content: line, append: true } }, { fillChecklist: true }],
});

describe.skipIf(pgMissing)(
  'switchyard run --store postgres:// (machines on one backlog)',
  {
    timeout: 240_000,
  },
  () => {
    it('two clones drain one backlog: each task lands once on the remote, the dependency and the shared file hold across machines, archives reach both', {
      retry: 1,
    }, async () => {
      const remote = bareRemote();
      // Leases long enough that a loaded machine never loses one here: taking a task over is the
      // next scenario's subject. This scenario hung once in a full suite run (cause not found
      // yet): one retry, so that a hang shows in the report without hiding a steady failure.
      const config = {
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        store: { url, leaseSeconds: 30 },
      };
      const catalog = new Workspace();
      dirs.push(catalog.dir);
      const flags = catalog.path('.scenario-flag');
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // a and d wait for each other: with one task at a time per machine, they run on
              // different machines, so both machines work whatever order they take tasks in.
              meet('g/a', 'a.txt', flags, 'a', 'd'),
              write('g/b', 'shared.txt', 'b\n'),
              write('g/c', 'shared.txt', 'c\n'),
              meet('g/d', 'd.txt', flags, 'd', 'a'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const one = machine(remote, config);
      const two = machine(remote, config);
      const env = { SWITCHYARD_STORE: '' };
      const run = (ws: Workspace, extra: string[]): Promise<RunResult> =>
        runCli(
          [
            'run',
            '--workspace',
            ws.dir,
            '--execution-catalog',
            catalog.catalogFile,
            '--json',
            '--max-parallel',
            '1',
            ...extra,
          ],
          { env },
        );
      // `submit` publishes (idempotently: the runs below find every task there already).
      const submitted = await runCli(['submit', '--store', url, '--workspace', one.dir, '--json'], {
        env,
      });
      expect(submitted.code, submitted.stderr).toBe(0);
      expect(JSON.parse(submitted.stdout)).toMatchObject({ published: 4, existing: 0 });
      // One names the store with --store, the other through its config.
      // A third machine stands in an empty clone: `worker` works on the backlog it finds.
      const three = machine(remote, config, () => undefined);
      const worker = runCli(
        [
          ...['worker', '--until-idle', '--workspace', three.dir, '--store', url],
          ...['--execution-catalog', catalog.catalogFile, '--json', '--max-parallel', '1'],
        ],
        { env },
      );
      const [first, second, third] = await Promise.all([
        run(one, ['--store', url]),
        run(two, []),
        worker,
      ]);
      expect(third.code, third.stderr).toBe(0);
      expect(first.code, first.stderr).toBe(0);
      expect(second.code, second.stderr).toBe(0);

      // Each task landed exactly once on the remote, c after its dependency a.
      const commits = landed(remote);
      expect([...commits].sort()).toEqual(['g/a', 'g/b', 'g/c', 'g/d']);
      expect(commits.indexOf('g/c')).toBeGreaterThan(commits.indexOf('g/a'));
      // b and c share shared.txt: the later one was built on the earlier one's landed line.
      const shared = git(remote, 'show', 'main:shared.txt');
      expect(shared.split('\n').sort()).toEqual(['b', 'base', 'c']);

      // Every task was taken by one machine only; both machines worked.
      const admitted = (r: RunResult) =>
        r.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; task?: string })
          .filter((e) => e.type === 'task.admitted')
          .map((e) => e.task);
      const byOne = admitted(first);
      const byTwo = admitted(second);
      const byThree = admitted(third);
      expect([...byOne, ...byTwo, ...byThree].sort()).toEqual(['g/a', 'g/b', 'g/c', 'g/d']);
      // a and d met: on two different machines.
      const machineOf = (task: string) =>
        [byOne, byTwo, byThree].findIndex((by) => by.includes(task));
      expect(machineOf('g/a')).not.toBe(machineOf('g/d'));

      // The backlog says archived, by whom; both clones hold every archive, no active folder.
      expect(
        sql("select string_agg(task || ':' || status, ',' order by task) from switchyard.backlog"),
      ).toBe('g/a:archived,g/b:archived,g/c:archived,g/d:archived');
      for (const ws of [one, two, three])
        for (const task of ['a', 'b', 'c', 'd']) {
          expect(ws.exists('agent-task/archive/g', task, 'complete.log'), `${ws.dir} ${task}`).toBe(
            true,
          );
          expect(ws.exists('agent-task/g', task)).toBe(false);
        }
      // `status --store` shows every task with the machine that ran it (both machines appear).
      const status = await runCli(['status', '--json', '--workspace', two.dir], { env });
      expect(status.code, status.stderr).toBe(0);
      const shown = JSON.parse(status.stdout) as {
        tasks: { task: string; status: string; machine: string }[];
      };
      expect(shown.tasks.map((t) => `${t.task}:${t.status}`)).toEqual([
        'g/a:archived',
        'g/b:archived',
        'g/c:archived',
        'g/d:archived',
      ]);
      expect(
        new Set(shown.tasks.map((t) => t.machine.replace(/.* pid /, ''))).size,
      ).toBeGreaterThanOrEqual(2);
      // The clones' branches are at the remote tip or behind it, never ahead.
      for (const ws of [one, two])
        expect(git(ws.dir, 'rev-list', '--count', 'origin/main..main')).toBe('0');
    });

    it('kill -9 of one machine mid-attempt and SIGSTOP of another past its lease: a third takes both over, nothing lands twice, the frozen one lands nothing', async () => {
      const remote = bareRemote();
      const config = {
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        store: { url, leaseSeconds: 5 },
      };
      const catalog = new Workspace();
      dirs.push(catalog.dir);
      const flag = (name: string) => catalog.path(`.scenario-${name}`);
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // First attempts (counted across machines): say so, then hang / wait.
              {
                when: { role: 'worker', task: 'g/k', attempt: 1 },
                steps: [{ write: { path: flag('k-started'), content: 'k' } }, { hang: true }],
              },
              {
                when: { role: 'worker', task: 'g/s', attempt: 1 },
                steps: [
                  { write: { path: flag('s-started'), content: 's' } },
                  { waitFor: flag('s-go') },
                  { write: { path: 's.txt', content: 'frozen\n' } },
                  { fillChecklist: true },
                ],
              },
              write('g/k', 'k.txt', 'k\n'),
              write('g/s', 's.txt', 's\n'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const tasks = (ws: Workspace) => {
        ws.task('g/k', { files: ['k.txt'] });
        ws.task('g/s', { files: ['s.txt'] });
      };
      const [x, y, z] = [0, 1, 2].map(() => machine(remote, config, tasks)) as [
        Workspace,
        Workspace,
        Workspace,
      ];
      const env = { SWITCHYARD_STORE: '' };
      const results = new Map<number, Promise<RunResult>>();
      const run = (ws: Workspace, parallel: string) => {
        let pid = 0;
        const result = runCli(
          [
            ...['run', '--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
            ...['--json', '--max-parallel', parallel],
          ],
          { env, onSpawn: (p) => (pid = p) },
        );
        results.set(pid, result);
        return result;
      };
      // One task each (one at a time per machine): both first attempts start.
      run(x, '1');
      run(y, '1');
      await until(
        () => existsSync(flag('k-started')) && existsSync(flag('s-started')),
        'both first attempts',
      );
      const lease = (task: string) =>
        sql(`select holder || ' ' || token from switchyard.leases where task = '${task}'`);
      const killed = Number(lease('g/k').split('/')[1]);
      const frozen = Number(lease('g/s').split('/')[1]);
      const frozenToken = lease('g/s').split(' ')[1];
      expect(killed).not.toBe(frozen);
      expect(results.has(killed) && results.has(frozen)).toBe(true);
      // kill -9 of the whole tree (the dispatcher and its hanging agent); SIGSTOP of the other.
      for (const pid of processTree(killed)) process.kill(pid, 'SIGKILL');
      process.kill(frozen, 'SIGSTOP');
      let taker: Promise<RunResult> | undefined;
      try {
        writeFileSync(flag('s-go'), 'go'); // the frozen machine's agent ends meanwhile
        // A third machine takes both over once their leases expire.
        taker = run(z, '2');
        await until(
          () => lease('g/s').split(' ')[1] !== frozenToken,
          'the lease taken over',
          120_000,
        );
      } finally {
        process.kill(frozen, 'SIGCONT');
      }
      const [dead, woken, third] = await Promise.all([
        results.get(killed) as Promise<RunResult>,
        results.get(frozen) as Promise<RunResult>,
        taker,
      ]);
      expect(dead.signal).toBe('SIGKILL');
      expect(third.code, third.stderr).toBe(0);
      // Each task landed exactly once, the frozen machine's work ("frozen") never.
      expect(landed(remote).sort()).toEqual(['g/k', 'g/s']);
      expect(git(remote, 'show', 'main:s.txt')).toBe('s');
      expect(git(remote, 'show', 'main:k.txt')).toBe('k');
      // The woken machine found its lease gone, stopped, kept its worktree, and ended like a
      // run whose tasks are all archived (by another machine).
      const lost = woken.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; code?: string; message?: string });
      expect(
        lost.some(
          (e) =>
            e.type === 'control.failure' &&
            e.code === 'SY_LEASE_LOST' &&
            e.message?.startsWith('g/s'),
        ),
        woken.stdout.slice(-2000),
      ).toBe(true);
      expect(woken.code, woken.stderr).toBe(0);
      expect(
        sql(
          "select string_agg(status, ',' order by task) from switchyard.backlog where task in ('g/k', 'g/s')",
        ),
      ).toBe('archived,archived');
    });
  },
);
