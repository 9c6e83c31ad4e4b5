import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APPROVE, type RunResult, runCli, until, type Workspace } from '../dispatcher/helpers.js';
import { git } from '../isolation/git-workspace.js';
import {
  appendingWorker,
  jsonEvents,
  landed,
  NO_STORE_ENV,
  pgMissing,
  processTree,
  sharedDatabase,
} from './machines.js';

// Tasks taken over on a shared PostgreSQL store, with real processes: a dispatcher restarted on
// its own clone, a machine killed while another runs, a machine frozen while its agent runs.
if (pgMissing) console.warn(`skipping the shared-store take-over tests: ${pgMissing}`);

const { db, sql, workspace, bareRemote, machine } = sharedDatabase('takeover_agents');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The PIDs of the agents the fake agent launched so far (its launch log). */
const launchedPids = (catalog: Workspace): number[] =>
  readFileSync(catalog.path('.scenario-t.json.state.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { pid: number }).pid);

/** A bare remote, its backlog's scope (the remote's URL without `.git`, and the branch), a
 * config with a 5 s lease on the shared database, and a catalog whose scenario flags lie
 * beside it. */
function takeOverSetting() {
  const remote = bareRemote();
  const scope = `${remote.replace(/\.git$/, '')}#main`;
  const config = {
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    store: { url: db.url, leaseSeconds: 5 },
  };
  const catalog = workspace();
  const flag = (name: string) => catalog.path(`.scenario-${name}`);
  return { remote, scope, config, catalog, flag };
}

/** The first worker of `task`: writes the flag `<name>-started`, waits for the file `go`,
 * then writes `content` into `path` and ticks its checklist. */
const heldWorker = (
  flag: (name: string) => string,
  task: string,
  go: string,
  write: { path: string; content: string },
) => ({
  when: { role: 'worker', task, attempt: 1 },
  steps: [
    { write: { path: flag(`${task.slice(2)}-started`), content: task.slice(2) } },
    { waitFor: go },
    { write },
    { fillChecklist: true },
  ],
});

/** `switchyard run` on a clone, one stage at a time, with the catalog's fake targets. */
const runOn = (
  catalog: Workspace,
  ws: Workspace,
  onSpawn: (pid: number) => void = () => undefined,
): Promise<RunResult> =>
  runCli(
    [
      ...['run', '--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
      ...['--json', '--max-parallel', '1'],
    ],
    { env: NO_STORE_ENV, onSpawn },
  );

describe.skipIf(pgMissing)(
  'a task taken over on a shared store (real processes)',
  {
    timeout: 240_000,
  },
  () => {
    it('after a kill -9 of the dispatcher alone, its restart takes the task over once the lease expires and re-attaches the agent it left running (or judges it, had it ended): no second worker beside it, the run ends 0', async () => {
      const { remote, config, catalog, flag } = takeOverSetting();
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // The first worker says so, then works until the test lets it finish.
              heldWorker(flag, 'g/k', flag('k-go'), { path: 'k.txt', content: 'first\n' }),
              appendingWorker('g/k', 'k.txt', 'second\n'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const clone = machine(remote, config);
      clone.task('g/k', { files: ['k.txt'] });
      const run = (ws: Workspace, onSpawn: (pid: number) => void) => runOn(catalog, ws, onSpawn);
      let killed = 0;
      const first = run(clone, (pid) => (killed = pid));
      await until(() => existsSync(flag('k-started')), 'the first worker started');
      const orphans = launchedPids(catalog);
      expect(orphans).toHaveLength(1);
      // The dispatcher alone dies (the real node binary: runCli spawns process.execPath).
      process.kill(killed, 'SIGKILL');
      expect((await first).signal).toBe('SIGKILL');
      try {
        let restarted = 0;
        const second = run(clone, (pid) => (restarted = pid));
        const holder = () => sql("select holder from switchyard.leases where task = 'g/k'");
        await until(
          () => holder().split('/')[1] === String(restarted),
          'the restart took the task over',
        );
        // The agent still runs when the restart holds the task: only now may it finish.
        expect(orphans.filter(alive)).toEqual(orphans);
        writeFileSync(flag('k-go'), 'go');
        const result = await second;
        expect(result.code, result.stdout.slice(-3000) + result.stderr).toBe(0);
        // One worker ever ran: the restart re-attached the one it found (or judged it from its
        // evidence, had it ended meanwhile), and started none beside it.
        const launches = readFileSync(catalog.path('.scenario-t.json.state.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { role: string });
        expect(launches.filter((l) => l.role === 'worker')).toHaveLength(1);
        expect(landed(remote)).toEqual(['g/k']);
        expect(git(remote, 'show', 'main:k.txt')).toBe('first');
        expect(sql("select status from switchyard.backlog where task = 'g/k'")).toBe('archived');
      } finally {
        for (const pid of orphans.filter(alive)) process.kill(pid, 'SIGKILL');
      }
    });

    it('a machine killed mid-attempt while another runs: the survivor takes the task over once the lease expires, lands it, seals the abandoned attempt in the shared work log, and ends 0; a machine starting meanwhile leaves live rows of others alone', async () => {
      const { remote, scope, config, catalog, flag } = takeOverSetting();
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              {
                when: { role: 'worker', task: 'g/a', attempt: 1 },
                steps: [{ write: { path: flag('a-started'), content: 'a' } }, { hang: true }],
              },
              heldWorker(flag, 'g/b', flag('b-go'), { path: 'b.txt', content: 'b\n' }),
              appendingWorker('g/a', 'a.txt', 'a\n'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const clones = [0, 1].map(() => {
        const ws = machine(remote, config);
        ws.task('g/a', { files: ['a.txt'] });
        ws.task('g/b', { files: ['b.txt'] });
        return ws;
      });
      const runs = new Map<number, Promise<RunResult>>();
      const start = (ws: Workspace) => {
        let pid = 0;
        const result = runOn(catalog, ws, (p) => (pid = p));
        runs.set(pid, result);
        return pid;
      };
      const started = () => [flag('a-started'), flag('b-started')].filter(existsSync).length;
      const first = start(clones[0] as Workspace);
      await until(() => started() === 1, 'the first machine started an attempt');
      // The second machine starts while the first one's agent runs, and takes the other task.
      const second = start(clones[1] as Workspace);
      await until(() => started() === 2, 'the second machine started an attempt');
      const finishes = () =>
        sql(
          `select count(*) from switchyard.work_log where scope = '${scope}' and row->>'kind' = 'FINISH'`,
        );
      // Both attempts run: no FINISH row for either (the second machine's start sealed nothing).
      expect(finishes()).toBe('0');
      const holderOf = (task: string) =>
        Number(
          sql(
            `select holder from switchyard.leases where scope = '${scope}' and task = '${task}'`,
          ).split('/')[1],
        );
      const killed = holderOf('g/a');
      const survivor = killed === first ? second : first;
      expect([first, second]).toContain(killed);
      // kill -9 of the holder of a, with its agent (the machine is gone).
      for (const pid of processTree(killed)) process.kill(pid, 'SIGKILL');
      expect((await runs.get(killed))?.signal).toBe('SIGKILL');
      writeFileSync(flag('b-go'), 'go');
      const result = (await runs.get(survivor)) as RunResult;
      const finished = jsonEvents(result).find((e) => e.type === 'run.finished');
      expect(result.code, JSON.stringify(finished) + result.stderr).toBe(0);
      expect(finished?.controlFailures).toEqual([]);
      expect(landed(remote).sort()).toEqual(['g/a', 'g/b']);
      expect(git(remote, 'show', 'main:a.txt')).toBe('a');
      // The killed machine's attempt of a has its FINISH, written by the machine that took a over.
      expect(
        sql(
          `select string_agg(row->>'result', ',' order by id) from switchyard.work_log where scope = '${scope}' and row->>'kind' = 'FINISH' and row->>'task' = 'g/a' and row->>'role' = 'worker'`,
        ),
      ).toBe('interrupted,success');
      expect(
        sql(
          `select string_agg(status, ',' order by task) from switchyard.backlog where scope = '${scope}'`,
        ),
      ).toBe('archived,archived');
    });
    it('a machine frozen (SIGSTOP) past its lease while its agent runs: another one takes the task over and lands it; the frozen one, woken, stops its agent, lands and writes nothing for it, and ends 0 with the archive', async () => {
      const { remote, scope, config, catalog, flag } = takeOverSetting();
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // The frozen machine's worker waits for a flag nobody writes: it runs until stopped.
              heldWorker(flag, 'g/s', flag('never'), { path: 's.txt', content: 'frozen\n' }),
              appendingWorker('g/s', 's.txt', 's\n'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const [frozenClone, otherClone] = [0, 1].map(() => {
        const ws = machine(remote, config);
        ws.task('g/s', { files: ['s.txt'] });
        return ws;
      }) as [Workspace, Workspace];
      const run = (ws: Workspace, onSpawn?: (pid: number) => void) => runOn(catalog, ws, onSpawn);
      let frozen = 0;
      const woken = run(frozenClone, (pid) => (frozen = pid));
      await until(() => existsSync(flag('s-started')), 'the first worker started');
      const agents = launchedPids(catalog);
      expect(agents).toHaveLength(1);
      process.kill(frozen, 'SIGSTOP');
      let other: RunResult;
      try {
        // The other machine takes s once the lease expires, and lands it while the first sleeps.
        other = await run(otherClone);
      } finally {
        process.kill(frozen, 'SIGCONT');
      }
      try {
        expect(other.code, other.stdout.slice(-3000) + other.stderr).toBe(0);
        expect(landed(remote)).toEqual(['g/s']);
        const result = await woken;
        const events = jsonEvents(result);
        expect(
          events.some(
            (e) =>
              e.type === 'control.failure' &&
              e.code === 'SY_LEASE_LOST' &&
              String(e.message).startsWith('g/s'),
          ),
        ).toBe(true);
        expect(result.code, result.stdout.slice(-3000) + result.stderr).toBe(0);
        // Its agent was stopped (it would have waited for ever), and nothing of it landed.
        expect(agents.filter(alive)).toEqual([]);
        expect(landed(remote)).toEqual(['g/s']);
        expect(git(remote, 'show', 'main:s.txt')).toBe('s');
        expect(frozenClone.read('agent-task/archive/g/s/complete.log')).toBe(
          otherClone.read('agent-task/archive/g/s/complete.log'),
        );
        expect(sql(`select status from switchyard.backlog where scope = '${scope}'`)).toBe(
          'archived',
        );
      } finally {
        for (const pid of agents.filter(alive)) process.kill(pid, 'SIGKILL');
      }
    });
  },
);
