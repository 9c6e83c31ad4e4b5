import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPROVE, type RunResult, runCli, until, type Workspace } from '../dispatcher/helpers.js';
import { git } from '../isolation/git-workspace.js';
import {
  appendingWorker,
  landed,
  machine,
  NO_STORE_ENV,
  pgMissing,
  processTree,
  sharedDatabase,
} from './machines.js';

// Faults of a shared backlog, with real processes: machines on their own clones of one bare
// remote, one PostgreSQL (a fresh cluster for this file).
if (pgMissing) console.warn(`skipping the shared-backlog fault tests: ${pgMissing}`);

const { db, sql, workspace, bareRemote } = sharedDatabase('faults');

type Event = { type: string; task?: string; at?: string; step?: string };
const eventsOf = (r: RunResult): Event[] =>
  r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Event);

describe.skipIf(pgMissing)(
  'a shared backlog under faults (real processes, one PostgreSQL)',
  {
    timeout: 240_000,
  },
  () => {
    it('a publish race, a claim race, every dispatcher killed (one mid-attempt, one between its push and its record): a new worker finishes the backlog, each task lands once, the pushed one is recorded without a second push', async () => {
      const remote = bareRemote();
      const url = db.url;
      const dirs = db.dirs;
      const config = { retry: { baseDelayMs: 5, maxDelayMs: 20 }, store: { url, leaseSeconds: 5 } };
      const catalog = workspace();
      const flag = (name: string) => catalog.path(`.scenario-${name}`);
      // The remote records every push by task; the first push of l stops in its hook until its
      // machine is killed: the commit is on the remote branch, its record never written.
      const pushes = flag('pushes');
      const hook = join(remote, 'hooks', 'post-receive');
      writeFileSync(
        hook,
        [
          '#!/bin/sh',
          'while read old new ref; do',
          `  task=$(git log -1 --format='%(trailers:key=Switchyard-Task,valueonly,separator=)' "$new" | tr -d ' \\n')`,
          `  echo "$task $new" >> '${pushes}'`,
          `  if [ "$task" = g/l ] && [ ! -e '${flag('l-pushed')}' ]; then`,
          `    echo "$new" > '${flag('l-pushed')}'`,
          '    while :; do sleep 1; done',
          '  fi',
          'done',
          '',
        ].join('\n'),
      );
      chmodSync(hook, 0o755);
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // k's first attempt (counted across machines) hangs until its machine is killed.
              {
                when: { role: 'worker', task: 'g/k', attempt: 1 },
                steps: [{ write: { path: flag('k-started'), content: 'k' } }, { hang: true }],
              },
              appendingWorker('g/k', 'k.txt', 'k\n'),
              appendingWorker('g/p', 'race.txt', 'p\n'),
              appendingWorker('g/q', 'race.txt', 'q\n'),
              appendingWorker('g/l', 'l.txt', 'l\n'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const tasks = (ws: Workspace) => {
        ws.task('g/k', { files: ['k.txt'] });
        ws.task('g/p', { files: ['race.txt'] });
        ws.task('g/q', { files: ['race.txt'] });
        ws.task('g/l', { files: ['l.txt'], dependsOn: ['p', 'q'] });
      };
      const [one, two] = [0, 1].map(() => machine(dirs, remote, config, tasks)) as [
        Workspace,
        Workspace,
      ];
      const env = NO_STORE_ENV;
      const submit = (ws: Workspace) =>
        runCli(['submit', '--store', url, '--workspace', ws.dir, '--json'], { env });

      // Two machines publish the same tasks at the same moment: each task once.
      const published = await Promise.all([submit(one), submit(two)]);
      for (const r of published) expect(r.code, r.stderr).toBe(0);
      const counts = published.map((r) => JSON.parse(r.stdout) as Record<string, number>);
      expect(counts.map((c) => (c.published ?? 0) + (c.existing ?? 0))).toEqual([4, 4]);
      expect((counts[0]?.published ?? 0) + (counts[1]?.published ?? 0)).toBe(4);
      // The same id with another plan is refused, naming it, and nothing of that publish lands.
      const rogue = machine(dirs, remote, config, (ws) => {
        ws.task('g/p', { files: ['race.txt', 'other.txt'] });
        ws.task('g/n', { files: ['n.txt'] });
      });
      const refused = await submit(rogue);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('SY_BACKLOG_CONFLICT');
      expect(refused.stderr).toContain('g/p');
      expect(sql('select count(*) from switchyard.backlog')).toBe('4');

      // Both machines start at the same moment: p and q (one file) race for the claim.
      const run = (ws: Workspace) => {
        let pid = 0;
        const result = runCli(
          [
            ...['run', '--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
            ...['--json', '--max-parallel', '2'],
          ],
          { env, onSpawn: (p) => (pid = p) },
        );
        return { result, pid: () => pid };
      };
      const machines = [run(one), run(two)];
      // Every dispatcher dies: k mid-attempt, l between its push and its record.
      await until(
        () => existsSync(flag('k-started')) && existsSync(flag('l-pushed')),
        'k started and l pushed',
      );
      const pushedL = readFileSync(flag('l-pushed'), 'utf8').trim();
      const trees = machines.flatMap((m) => processTree(m.pid()));
      for (const pid of trees) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      const [first, second] = await Promise.all(machines.map((m) => m.result));
      expect([first?.signal, second?.signal]).toEqual(['SIGKILL', 'SIGKILL']);
      expect(landed(remote).sort()).toEqual(['g/l', 'g/p', 'g/q']);

      // The claim: p and q never held it at once. It is taken before a task is admitted and
      // released after its commit landed: those two moments (one clock) never interleave.
      const span = (task: string) => {
        for (const r of [first, second] as RunResult[]) {
          const events = eventsOf(r).filter((e) => e.task === task);
          const from = events.find((e) => e.type === 'task.admitted')?.at;
          const to = events.find((e) => e.type === 'task.isolation' && e.step === 'applied')?.at;
          if (from && to) return [Date.parse(from), Date.parse(to)] as const;
        }
        throw new Error(`${task}: no admitted/applied events`);
      };
      const [p, q] = [span('g/p'), span('g/q')];
      expect(p[1] < q[0] || q[1] < p[0], JSON.stringify({ p, q })).toBe(true);
      expect(git(remote, 'show', 'main:race.txt').split('\n').sort()).toEqual(['p', 'q']);

      // A new machine with an empty clone finishes the backlog once the dead leases expire.
      const three = machine(dirs, remote, config, () => undefined);
      const worker = await runCli(
        [
          ...['worker', '--until-idle', '--workspace', three.dir, '--store', url],
          ...['--execution-catalog', catalog.catalogFile, '--json', '--max-parallel', '2'],
        ],
        { env },
      );
      expect(worker.code, worker.stderr).toBe(0);
      // Only the two unrecorded tasks were taken up again; each task landed once; l's commit is
      // the one its dead machine pushed, recorded without a second push.
      const admitted = eventsOf(worker)
        .filter((e) => e.type === 'task.admitted')
        .map((e) => e.task)
        .sort();
      expect(admitted).toEqual(['g/k', 'g/l']);
      // l is recorded from its pushed commit before anything is paid for: no attempt of it
      // (worker, review…) starts on the new machine.
      const attemptsOf = (task: string) =>
        eventsOf(worker).filter((e) => e.type === 'attempt.started' && e.task === task);
      expect(attemptsOf('g/l')).toEqual([]);
      expect(attemptsOf('g/k').length).toBeGreaterThan(0);
      expect(landed(remote).sort()).toEqual(['g/k', 'g/l', 'g/p', 'g/q']);
      expect(git(remote, 'log', '-1', '--format=%H', '--grep=Switchyard-Task: g/l', 'main')).toBe(
        pushedL,
      );
      const pushLines = readFileSync(pushes, 'utf8').trim().split('\n');
      expect(pushLines.filter((l) => l.startsWith('g/l ')).length, pushLines.join('\n')).toBe(1);
      expect(git(remote, 'show', 'main:k.txt')).toBe('k');
      expect(
        sql("select string_agg(task || ':' || status, ',' order by task) from switchyard.backlog"),
      ).toBe('g/k:archived,g/l:archived,g/p:archived,g/q:archived');
      // The history is linear (fast-forward pushes only): the first commit and one per task.
      expect(git(remote, 'rev-list', '--merges', 'main')).toBe('');
      expect(git(remote, 'rev-list', '--count', 'main')).toBe('5');
    });
  },
);
