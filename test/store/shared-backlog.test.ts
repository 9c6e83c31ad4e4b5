import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APPROVE, type RunResult, runCli, Workspace } from '../dispatcher/helpers.js';
import { git, until } from '../isolation/git-workspace.js';
import {
  appendingWorker,
  bareRemote as bareRemoteIn,
  landed,
  machine as machineIn,
  pgMissing,
  processTree,
  sharedDatabase,
} from './machines.js';

// Several machines on one backlog, simulated on one host: dispatchers on their own clones of
// one bare remote, one PostgreSQL (a fresh cluster for this file, as the `postgres` user when
// root). Skipped only where no PostgreSQL server is installed (CI installs it).
if (pgMissing) console.warn(`skipping the shared-backlog tests: ${pgMissing}`);

const { db, sql } = sharedDatabase('shared');
const bareRemote = () => bareRemoteIn(db.dirs);
const machine = (
  remote: string,
  config: Record<string, unknown>,
  tasks: (ws: Workspace) => void = fourTasks,
): Workspace => machineIn(db.dirs, remote, config, tasks);

function fourTasks(ws: Workspace): void {
  ws.task('g/a', { files: ['a.txt'] });
  ws.task('g/b', { files: ['shared.txt'] });
  ws.task('g/c', { files: ['shared.txt', 'c.txt'], dependsOn: ['a'] });
  ws.task('g/d', { files: ['d.txt'] });
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

describe.skipIf(pgMissing)(
  'switchyard run --store postgres:// (machines on one backlog)',
  {
    timeout: 240_000,
  },
  () => {
    it('three machines drain one backlog, one of them started while another held a claim: each task lands once, the dependency and the shared file hold across machines, archives reach every clone', async () => {
      const remote = bareRemote();
      // Leases long enough that a loaded machine never loses one here: this scenario counts one
      // admission per task, and taking a task over is the next scenario's subject.
      const config = {
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        store: { url: db.url, leaseSeconds: 30 },
      };
      const catalog = new Workspace();
      db.dirs.push(catalog.dir);
      const flags = catalog.path('.scenario-flag');
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // a and d wait for each other: they run on two machines at once.
              meet('g/a', 'a.txt', flags, 'a', 'd'),
              {
                // b holds shared.txt until the test lets it go.
                when: { role: 'worker', task: 'g/b' },
                steps: [
                  { write: { path: `${flags}-b-started`, content: 'b' } },
                  { waitFor: `${flags}-b-go` },
                  { write: { path: 'shared.txt', content: 'b\n', append: true } },
                  { fillChecklist: true },
                ],
              },
              appendingWorker('g/c', 'shared.txt', 'c\n'),
              meet('g/d', 'd.txt', flags, 'd', 'a'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const env = { SWITCHYARD_STORE: '' };
      const common = ['--execution-catalog', catalog.catalogFile, '--json', '--max-parallel', '1'];
      const run = (ws: Workspace, extra: string[]): Promise<RunResult> =>
        runCli(['run', '--workspace', ws.dir, ...common, ...extra], { env });
      const submit = async (ws: Workspace) => {
        const result = await runCli(
          ['submit', '--store', db.url, '--workspace', ws.dir, '--json'],
          {
            env,
          },
        );
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(result.stdout) as { published: number; existing: number };
      };
      // First only b is published (from a clone that has only b), and a worker standing in an
      // empty clone takes it: b holds shared.txt.
      const early = machine(remote, config, (ws) => ws.task('g/b', { files: ['shared.txt'] }));
      expect(await submit(early)).toMatchObject({ published: 1, existing: 0 });
      const three = machine(remote, config, () => undefined);
      const worker = runCli(
        ['worker', '--until-idle', '--workspace', three.dir, '--store', db.url, ...common],
        { env },
      );
      await until(() => existsSync(`${flags}-b-started`), 'b started on the worker');
      // The rest is published (b again: the same plan is the same task), and two machines start
      // while b holds shared.txt: one names the store with --store, the other through its config.
      const one = machine(remote, config);
      const two = machine(remote, config);
      expect(await submit(one)).toMatchObject({ published: 3, existing: 1 });
      const runs = Promise.all([run(one, ['--store', db.url]), run(two, [])]);
      // a and d meet on those two; c (after a, on shared.txt) is taken by one of them while b
      // still holds the file. Only then does b go on: c must learn of b's release from the store.
      await until(
        () => sql("select status from switchyard.backlog where task = 'g/c'") === 'taken',
        'c taken',
      );
      writeFileSync(`${flags}-b-go`, 'go');
      const [[first, second], third] = await Promise.all([runs, worker]);
      expect(third.code, third.stderr).toBe(0);
      expect(first.code, first.stderr).toBe(0);
      expect(second.code, second.stderr).toBe(0);

      // Each task landed exactly once on the remote, c after its dependency a and after b.
      const commits = landed(remote);
      expect([...commits].sort()).toEqual(['g/a', 'g/b', 'g/c', 'g/d']);
      expect(commits.indexOf('g/c')).toBeGreaterThan(commits.indexOf('g/a'));
      // b and c share shared.txt: c was built on b's landed line.
      expect(git(remote, 'show', 'main:shared.txt')).toBe('base\nb\nc');

      // Every task was taken by one machine only: b by the worker, a and d on the two runs.
      const events = (r: RunResult) =>
        r.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; task?: string; reason?: string });
      const admitted = (r: RunResult) =>
        events(r)
          .filter((e) => e.type === 'task.admitted')
          .map((e) => e.task);
      const [byOne, byTwo, byThree] = [admitted(first), admitted(second), admitted(third)];
      expect([...byOne, ...byTwo, ...byThree].sort()).toEqual(['g/a', 'g/b', 'g/c', 'g/d']);
      expect(byThree).toEqual(['g/b']);
      expect([byOne.includes('g/a'), byOne.includes('g/d')].sort()).toEqual([false, true]);
      // The machine that took c said what it waited for: shared.txt, held by b on another one.
      const cTaker = byOne.includes('g/c') ? first : second;
      expect(
        events(cTaker).some(
          (e) => e.type === 'task.waiting' && e.task === 'g/c' && e.reason === 'claim',
        ),
        cTaker.stdout.slice(-3000),
      ).toBe(true);

      // The backlog says archived; the clones that published every task hold every archive.
      expect(
        sql("select string_agg(task || ':' || status, ',' order by task) from switchyard.backlog"),
      ).toBe('g/a:archived,g/b:archived,g/c:archived,g/d:archived');
      for (const ws of [one, two])
        for (const task of ['a', 'b', 'c', 'd']) {
          expect(ws.exists('agent-task/archive/g', task, 'complete.log'), `${ws.dir} ${task}`).toBe(
            true,
          );
          expect(ws.exists('agent-task/g', task)).toBe(false);
        }
      expect(three.exists('agent-task/archive/g/b/complete.log')).toBe(true);
      // `status --store` shows every task with the machine that ran it (three machines appear).
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
      expect(new Set(shown.tasks.map((t) => t.machine.replace(/.* pid /, ''))).size).toBe(3);
      // The clones' branches are at the remote tip or behind it, never ahead.
      for (const ws of [one, two, three])
        expect(git(ws.dir, 'rev-list', '--count', 'origin/main..main')).toBe('0');
    });

    it('kill -9 of one machine mid-attempt and SIGSTOP of another past its lease: a third takes both over, nothing lands twice, the frozen one lands nothing', async () => {
      const remote = bareRemote();
      const config = {
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        store: { url: db.url, leaseSeconds: 5 },
      };
      const catalog = new Workspace();
      db.dirs.push(catalog.dir);
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
              appendingWorker('g/k', 'k.txt', 'k\n'),
              appendingWorker('g/s', 's.txt', 's\n'),
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
        `exit ${woken.code} ${woken.signal ?? ''}\n${woken.stdout.slice(-2000)}\n${woken.stderr.slice(-2000)}`,
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
