import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { type PostgresCluster, startPostgresCluster } from '@switchyard/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPROVE,
  CLI,
  type RunResult,
  runCli,
  stopWhenTestEnds,
  until,
  Workspace,
} from '../dispatcher/helpers.js';
import { bareRemote, machine, pgMissing } from './machines.js';

// monitor, retro, resolve and retry on a shared PostgreSQL store, seen from several machines
// (their own clones of one bare remote, one fresh cluster for this file).
if (pgMissing) console.warn(`skipping the shared-store command tests: ${pgMissing}`);

let cluster: PostgresCluster;
let url = '';
const dirs: string[] = [];
beforeAll(async () => {
  if (pgMissing) return;
  cluster = await startPostgresCluster();
  url = cluster.createDatabase('commands');
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
      ...['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'commands'],
      ...['-At', '-v', 'ON_ERROR_STOP=1', '-c', statement],
    ],
    { encoding: 'utf8' },
  ).trim();

interface LogEvent {
  id: number;
  event: { type: string; machine?: string; task?: string; runId: string };
}

/** Reads the monitor's `/log` server-sent events over HTTP (from Last-Event-ID when given). */
function readLog(monitorUrl: string, lastEventId?: number) {
  const page = new URL(monitorUrl);
  const events: LogEvent[] = [];
  let buffer = '';
  let closed = false;
  const request = get(
    `http://127.0.0.1:${page.port}/log?token=${page.searchParams.get('token')}`,
    { headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) } },
    (res) => {
      expect(res.statusCode).toBe(200);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const field = (name: string) =>
            frame.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
          if (closed || field('event') !== 'run-event') continue;
          events.push({ id: Number(field('id')), event: JSON.parse(field('data') ?? '{}') });
        }
      });
    },
  );
  request.on('error', () => undefined);
  return {
    events,
    close() {
      closed = true;
      request.destroy();
    },
  };
}

/** A JSON document of the monitor (e.g. `/snapshot.json`). */
function getJson(monitorUrl: string, path: string): Promise<unknown> {
  const page = new URL(monitorUrl);
  return new Promise((resolve, reject) => {
    get(`http://127.0.0.1:${page.port}${path}?token=${page.searchParams.get('token')}`, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve(JSON.parse(body)));
    }).on('error', reject);
  });
}

/** A text answer of the monitor for one task (e.g. `/diff`): its status and body. */
function getText(
  monitorUrl: string,
  path: string,
  task: string,
): Promise<{ status: number; body: string }> {
  const page = new URL(monitorUrl);
  const query = `token=${page.searchParams.get('token')}&task=${encodeURIComponent(task)}`;
  return new Promise((resolve, reject) => {
    get(`http://127.0.0.1:${page.port}${path}?${query}`, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** `switchyard monitor` spawned; resolves with its first (JSON) line and the process. */
function startMonitor(
  ws: Workspace,
): Promise<{ line: Record<string, string>; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [CLI, 'monitor', '--workspace', ws.dir, '--store', url, '--json', '--read-only'],
    { env: { ...process.env, SWITCHYARD_STORE: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  stopWhenTestEnds(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ line: JSON.parse(out.split('\n')[0]!), child });
    });
    child.on('close', (code) => reject(new Error(`monitor ended (${code}): ${err}`)));
  });
}

const ended = (child: ChildProcess) =>
  new Promise<number | null>((r) => {
    if (child.exitCode !== null) r(child.exitCode);
    else child.once('close', (code) => r(code));
  });

describe.skipIf(pgMissing)(
  'monitor, retro, resolve and retry --store (every machine)',
  {
    timeout: 300_000,
  },
  () => {
    it('a monitor on machine C follows the runs of A and B live and resumes from Last-Event-ID; retro names the machines; resolve/retry change the record in the database and refuse a task running elsewhere', async () => {
      const remote = bareRemote(dirs);
      const config = {
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        store: { url, leaseSeconds: 30 },
      };
      const catalog = new Workspace();
      dirs.push(catalog.dir);
      const flag = (name: string) => catalog.path(`.scenario-${name}`);
      catalog.catalog({
        t: {
          scenario: {
            cases: [
              APPROVE,
              // g/x fails ten times (its budget: blocked), the eleventh attempt waits for the test.
              ...Array.from({ length: 10 }, (_, i) => ({
                when: { role: 'worker', task: 'g/x', attempt: i + 1 },
                steps: [{ print: 'fatal: cannot build', stream: 'stderr' }, { exit: 2 }],
              })),
              {
                when: { role: 'worker', task: 'g/y' },
                steps: [{ write: { path: 'y.txt', content: 'y\n' } }, { fillChecklist: true }],
              },
              {
                when: { role: 'worker', task: 'g/x' },
                steps: [
                  { write: { path: flag('x-started'), content: 'x' } },
                  { waitFor: flag('x-go') },
                  { write: { path: 'x.txt', content: 'x\n' } },
                  { fillChecklist: true },
                ],
              },
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      });
      const tasks = (ws: Workspace) => {
        ws.task('g/x', { files: ['x.txt'] });
        ws.task('g/y', { files: ['y.txt'] });
      };
      const [a, b, c] = [0, 1, 2].map(() => machine(dirs, remote, config, tasks)) as [
        Workspace,
        Workspace,
        Workspace,
      ];
      const env = { SWITCHYARD_STORE: '' };
      const pids = new Map<Workspace, number>();
      const dispatch = (command: string[], ws: Workspace): Promise<RunResult> =>
        runCli(
          [
            ...command,
            ...['--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
            ...['--json', '--max-parallel', '1'],
          ],
          { env, onSpawn: (pid) => pids.set(ws, pid) },
        );
      const machineName = (ws: Workspace) => `${hostname()} pid ${pids.get(ws)}`;

      // Machine C's monitor follows the store before anything runs.
      const monitor = await startMonitor(c);
      expect(monitor.line).toMatchObject({
        type: 'monitor.started',
        scope: `${remote.replace(/\.git$/, '')}#main`,
      });
      const first = readLog(monitor.line.monitor_url!);

      // Machine A runs both tasks: g/y is archived, g/x blocks after ten failures (exit 3).
      const runA = dispatch(['run', '--store', url], a);
      // The stream is cut while A runs, and resumed from its last id after more events came.
      await until(
        () => first.events.some((e) => e.event.type === 'attempt.finished'),
        'a first attempt on the live stream',
      );
      first.close();
      const lastSeen = first.events.at(-1)!.id;
      await until(() => Number(sql('select max(seq) from switchyard.events')) > lastSeen + 3);
      const second = readLog(monitor.line.monitor_url!, lastSeen);
      const resultA = await runA;
      expect(resultA.code, resultA.stderr).toBe(3);
      await until(
        () => second.events.some((e) => e.event.type === 'run.finished'),
        "A's run.finished on the resumed stream",
      );
      // A's events reached C live, each naming A.
      for (const e of [...first.events, ...second.events])
        expect(e.event.machine, JSON.stringify(e.event)).toBe(machineName(a));

      // C's page shows the store's states, not its own (it ran nothing): g/x blocked, the
      // attempts in its history each naming A. (Read again after each event: wait for it.)
      // g/y, archived on A, is done on C's page although its archive never reached C's clone.
      type Snapshot = {
        tasks: {
          id: string;
          state: string;
          machine?: string;
          history: { type: string; machine?: string }[];
        }[];
      };
      let page: Snapshot = { tasks: [] };
      const stateOf = (id: string) => page.tasks.find((t) => t.id === id)?.state;
      for (let i = 0; i < 50 && (stateOf('g/x') !== 'blocked' || stateOf('g/y') !== 'done'); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 200));
        page = (await getJson(monitor.line.monitor_url!, '/snapshot.json')) as Snapshot;
      }
      expect(existsSync(c.path('agent-task/archive/g/y'))).toBe(false);
      expect(page.tasks.map((t) => [t.id, t.state, t.machine])).toEqual([
        ['g/x', 'blocked', machineName(a)],
        ['g/y', 'done', machineName(a)],
      ]);
      // g/y's commit is on the remote, not in C's clone: the diff says where it is.
      const diff = await getText(monitor.line.monitor_url!, '/diff', 'g/y');
      expect(diff.status).toBe(409);
      expect(diff.body).toContain(`was made on ${machineName(a)}`);
      expect(diff.body).toContain('git fetch');
      const started = page.tasks
        .find((t) => t.id === 'g/x')!
        .history.filter((h) => h.type === 'attempt.started');
      expect(started).toHaveLength(10);
      expect(new Set(started.map((h) => h.machine))).toEqual(new Set([machineName(a)]));

      // retro --store (from B): every machine's runs, each task's attempts by machine.
      const retro = await runCli(['retro', '--store', url, '--workspace', b.dir, '--json'], {
        env,
      });
      expect(retro.code, retro.stderr).toBe(0);
      const figures = JSON.parse(retro.stdout) as {
        tasks: { task: string; outcome: string; machines?: Record<string, number> }[];
      };
      expect(figures.tasks.map((t) => [t.task, t.outcome, t.machines])).toEqual([
        ['g/x', 'blocked', { [machineName(a)]: 10 }],
        ['g/y', 'archived', { [machineName(a)]: 2 }], // its worker and its review
      ]);

      // resolve --skip from B: the escalation closes in the database, the task stays blocked.
      const skip = await runCli(
        ['resolve', 'g/x', '--skip', '--store', url, '--workspace', b.dir, '--json'],
        { env },
      );
      expect(skip.code, skip.stderr).toBe(0);
      expect(JSON.parse(skip.stdout)).toMatchObject({
        task: 'g/x',
        action: 'skip',
        machine: machineName(a),
      });
      expect(sql("select status from switchyard.backlog where task = 'g/x'")).toBe('blocked');
      // An archived task is not blocked: refused, naming its state and machine (exit 2).
      const notBlocked = await runCli(
        ['resolve', 'g/y', '--retry', '--store', url, '--workspace', b.dir],
        { env },
      );
      expect(notBlocked.code).toBe(2);
      expect(notBlocked.stderr).toContain(
        `not blocked (archived in the shared backlog, last on ${machineName(a)})`,
      );

      // retry --store on B: a fresh budget in the database, then B works on the backlog.
      const runB = dispatch(['retry', 'g/x', '--store', url], b);
      await until(() => existsSync(flag('x-started')), 'the retried attempt on B');
      // While B runs it, C's resolve is refused, naming B (exit 1).
      const held = await runCli(
        ['resolve', 'g/x', '--retry', '--store', url, '--workspace', c.dir],
        { env },
      );
      expect(held.code).toBe(1);
      expect(held.stderr).toContain('SY_TASK_HELD');
      expect(held.stderr).toContain(`being run by ${machineName(b)}`);
      writeFileSync(flag('x-go'), 'go');
      const resultB = await runB;
      expect(resultB.code, resultB.stderr).toBe(0);
      expect(sql("select string_agg(status, ',' order by task) from switchyard.backlog")).toBe(
        'archived,archived',
      );
      await until(
        () => second.events.filter((e) => e.event.type === 'run.finished').length === 2,
        "B's run.finished on C's stream",
      );
      second.close();
      monitor.child.kill('SIGTERM');
      expect(await ended(monitor.child)).toBe(0);

      // Nothing missed, nothing repeated: the two streams together are the events table.
      const ids = [...first.events, ...second.events].map((e) => e.id);
      expect(ids.join(',')).toBe(
        sql("select string_agg(seq::text, ',' order by seq) from switchyard.events"),
      );
      // Both machines' runs reached C, each event naming its machine.
      const machines = new Set(second.events.map((e) => e.event.machine));
      expect(machines).toEqual(new Set([machineName(a), machineName(b)]));
    });
  },
);
