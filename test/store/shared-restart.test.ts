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

// A dispatcher on a shared PostgreSQL store restarted on its own clone, with real processes.
if (pgMissing) console.warn(`skipping the shared-store restart tests: ${pgMissing}`);

const { db, sql, workspace, bareRemote, machine } = sharedDatabase('restart');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(pgMissing)(
  'a dispatcher restarted on its clone (shared store)',
  {
    timeout: 180_000,
  },
  () => {
    it('after a kill -9 of the dispatcher alone, its restart takes the task over once the lease expires and re-attaches the agent still running: no second worker beside it, the run ends 0', async () => {
      const remote = bareRemote();
      const config = {
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        store: { url: db.url, leaseSeconds: 5 },
      };
      const catalog = workspace();
      const flag = (name: string) => catalog.path(`.scenario-${name}`);
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // The first worker says so, then works until the test lets it finish.
              {
                when: { role: 'worker', task: 'g/k', attempt: 1 },
                steps: [
                  { write: { path: flag('k-started'), content: 'k' } },
                  { waitFor: flag('k-go') },
                  { write: { path: 'k.txt', content: 'first\n' } },
                  { fillChecklist: true },
                ],
              },
              appendingWorker('g/k', 'k.txt', 'second\n'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const clone = machine(remote, config);
      clone.task('g/k', { files: ['k.txt'] });
      const run = (ws: Workspace, onSpawn: (pid: number) => void): Promise<RunResult> =>
        runCli(
          [
            ...['run', '--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
            ...['--json', '--max-parallel', '1'],
          ],
          { env: NO_STORE_ENV, onSpawn },
        );
      let killed = 0;
      const first = run(clone, (pid) => (killed = pid));
      await until(() => existsSync(flag('k-started')), 'the first worker started');
      const agents = processTree(killed).slice(1);
      // The dispatcher alone dies (the real node binary: runCli spawns process.execPath).
      process.kill(killed, 'SIGKILL');
      expect((await first).signal).toBe('SIGKILL');
      const orphans = agents.filter(alive);
      expect(orphans.length).toBeGreaterThan(0);
      try {
        let restarted = 0;
        const second = run(clone, (pid) => (restarted = pid));
        const holder = () => sql("select holder from switchyard.leases where task = 'g/k'");
        await until(
          () => holder().split('/')[1] === String(restarted),
          'the restart took the task over',
        );
        // The agent still runs when the restart holds the task: only now may it finish.
        expect(orphans.some(alive)).toBe(true);
        writeFileSync(flag('k-go'), 'go');
        const result = await second;
        expect(result.code, result.stdout.slice(-3000) + result.stderr).toBe(0);
        const events = jsonEvents(result);
        expect(
          events.some((e) => e.type === 'attempt.started' && e.role === 'worker' && e.reattached),
        ).toBe(true);
        // One worker ever ran: the restart judged the one it found, started none beside it.
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
  },
);
