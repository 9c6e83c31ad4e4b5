import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PostgresCluster } from '@switchyard/testkit/postgres';
import { describe, expect, it } from 'vitest';
import { APPROVE, runCli, until, type Workspace } from '../dispatcher/helpers.js';
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

// A task taken over from a machine that died after ending it, before the backlog knew: real
// processes, machines on their own clones of one bare remote, one PostgreSQL.
if (pgMissing) console.warn(`skipping the shared-backlog take-over tests: ${pgMissing}`);

const { db, sql, workspace, bareRemote, machine } = sharedDatabase('takeover');

/**
 * Holds the task's backlog and claim rows locked (`for update`) from a psql session of the
 * test's own: a dispatcher's record of the task's end in the backlog, and its release of the
 * task's claims, wait until `release`.
 */
async function lockTaskRows(task: string): Promise<{ release: () => void }> {
  const cluster = db.cluster as PostgresCluster;
  const psql = spawn(
    join(cluster.bin, 'psql'),
    [
      ...['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'takeover'],
      ...['-At', '-v', 'ON_ERROR_STOP=1'],
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  psql.stdout.on('data', (d) => {
    out += d;
  });
  psql.stdin.write(
    [
      'begin;',
      `select path from switchyard.claims where task = '${task}' for update;`,
      `select 'locked:' || task from switchyard.backlog where task = '${task}' for update;`,
      '',
    ].join('\n'),
  );
  await until(() => out.includes(`locked:${task}`), "the task's rows locked");
  return {
    release: () => {
      psql.stdin.end('rollback;\n');
    },
  };
}

describe.skipIf(pgMissing)(
  'a task taken over after its machine ended it and died (shared store)',
  {
    timeout: 240_000,
  },
  () => {
    it('a task saved blocked by a machine killed before it recorded the block in the backlog or released its claim: the machine that takes it over keeps it blocked, records it and releases the claim (a task sharing its file lands), no attempt runs again', async () => {
      const remote = bareRemote();
      const config = {
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        store: { url: db.url, leaseSeconds: 5 },
      };
      const catalog = workspace();
      const flag = (name: string) => catalog.path(`.scenario-${name}`);
      const failing = { print: 'fatal: cannot build', stream: 'stderr' };
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // The first attempt fails once the test holds the backlog row; every attempt fails.
              {
                when: { role: 'worker', task: 'g/x', attempt: 1 },
                steps: [
                  { write: { path: flag('x-started'), content: 'x' } },
                  { waitFor: flag('x-go') },
                  failing,
                  { exit: 2 },
                ],
              },
              { when: { role: 'worker', task: 'g/x' }, steps: [failing, { exit: 2 }] },
              appendingWorker('g/u', 'x.txt', 'u\n'),
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const a = machine(remote, config);
      a.task('g/x', { files: ['x.txt'] });
      const submitted = await runCli(['submit', '--store', db.url, '--workspace', a.dir], {
        env: NO_STORE_ENV,
      });
      expect(submitted.code, submitted.stderr).toBe(0);
      // B runs two tasks at once: g/u waits on the claim while B takes g/x over.
      const dispatch = (command: string[], ws: Workspace, onSpawn: (pid: number) => void) =>
        runCli(
          [
            ...command,
            ...['--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
            ...['--json', '--max-parallel', '2'],
          ],
          { env: NO_STORE_ENV, onSpawn },
        );
      let pidA = 0;
      const runA = dispatch(['run'], a, (pid) => (pidA = pid));
      await until(() => existsSync(flag('x-started')), "A's first attempt started");
      // A records the block and releases the claim only after this lock is gone: it dies before.
      const lock = await lockTaskRows('g/x');
      try {
        writeFileSync(flag('x-go'), 'go');
        await until(
          () =>
            sql(
              "select jsonb_typeof(state->'blocked') from switchyard.task_states where task = 'g/x'",
            ) === 'object',
          'g/x saved blocked',
        );
        expect(sql("select count(*) from switchyard.escalations where task = 'g/x'")).toBe('1');
        for (const pid of processTree(pidA)) process.kill(pid, 'SIGKILL');
        expect((await runA).signal).toBe('SIGKILL');
      } finally {
        lock.release();
      }
      expect(sql("select status from switchyard.backlog where task = 'g/x'")).toBe('taken');
      const claimsOf = (task: string) =>
        sql(`select string_agg(path, ',') from switchyard.claims where task = '${task}'`);
      expect(claimsOf('g/x')).toBe('x.txt');
      const launches = () =>
        readFileSync(catalog.path('.scenario-t.json.state.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { role: string; task: string })
          .filter((l) => l.role === 'worker' && l.task === 'g/x').length;
      const paid = launches();
      expect(paid).toBe(10);

      // B, a new machine, publishes g/u (the same file as g/x) and takes g/x over once A's
      // lease expired: g/x stays blocked and its claim is released, so g/u lands.
      const b = machine(remote, config);
      b.task('g/u', { files: ['x.txt'] });
      const published = await runCli(['submit', '--store', db.url, '--workspace', b.dir], {
        env: NO_STORE_ENV,
      });
      expect(published.code, published.stderr).toBe(0);
      const worker = await dispatch(['worker', '--until-idle', '--store', db.url], b, () => 0);
      const events = jsonEvents(worker);
      expect(
        events.filter((e) => e.type === 'attempt.started' && e.task === 'g/x'),
        worker.stdout.slice(-3000) + worker.stderr,
      ).toEqual([]);
      expect(launches()).toBe(paid);
      expect(sql("select status from switchyard.backlog where task = 'g/x'")).toBe('blocked');
      expect(
        sql(
          "select state->'blocked'->>'stage' || ':' || jsonb_array_length(state->'attempts') from switchyard.task_states where task = 'g/x'",
        ),
      ).toBe(`worker:${paid}`);
      expect(sql("select count(*) from switchyard.escalations where task = 'g/x'")).toBe('1');
      expect(claimsOf('g/x')).toBe('');
      expect(
        events.filter((e) => e.type === 'task.isolation' && e.step === 'claim-released'),
      ).toMatchObject([{ task: 'g/x', files: ['x.txt'] }]);
      expect(landed(remote)).toEqual(['g/u']);
      expect(git(remote, 'show', 'main:x.txt')).toBe('u');
      expect(sql("select status from switchyard.backlog where task = 'g/u'")).toBe('archived');
      // The run ends with a task blocked: exit 3, as on one machine.
      expect(worker.code, worker.stderr).toBe(3);
    });
  },
);
