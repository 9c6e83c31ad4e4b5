import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, Workspace } from '../dispatcher/helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const EVERY_2S = '*/2 * * * * *';

type Event = Record<string, unknown> & { type: string };

/** A running `switchyard daemon --json`: its JSON-line events, awaited by predicate. */
class Daemon {
  readonly child: ChildProcess;
  readonly events: Event[] = [];
  private waiters: Array<() => void> = [];
  private stderr = '';
  readonly closed: Promise<number | null>;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [CLI, 'daemon', '--json'], {
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffer = '';
    this.child.stdout?.on('data', (d) => {
      buffer += d;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line) this.events.push(JSON.parse(line));
      for (const w of this.waiters) w();
    });
    this.child.stderr?.on('data', (d) => {
      this.stderr += d;
    });
    this.closed = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
    this.closed.then(() => {
      for (const w of this.waiters) w();
    });
  }

  /** The first event (after index `from`) matching; rejects if the daemon ends first. */
  next(match: (e: Event) => boolean, from = 0): Promise<Event> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.slice(from).find(match);
        if (found) {
          this.waiters = this.waiters.filter((w) => w !== check);
          resolve(found);
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          reject(new Error(`daemon ended:\n${JSON.stringify(this.events)}\n${this.stderr}`));
        }
      };
      this.waiters.push(check);
      check();
    });
  }

  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.closed;
  }
}

/** Resolves once `dir/name` exists (watching the folder, not polling on a timer). */
function fileAppears(dir: string, name: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => {
      if (existsSync(join(dir, name))) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(join(dir, name))) {
      watcher.close();
      resolve();
    }
  });
}

/** A workspace with one task the fake agent completes (or holds until `release` exists). */
function workspace(opts: { hold?: boolean } = {}): Workspace {
  const ws = new Workspace();
  ws.catalog({
    a: {
      scenario: {
        cases: [approve],
        steps: [
          ...(opts.hold
            ? [{ write: { path: 'started', content: 'agent running\n' } }, { waitFor: 'release' }]
            : []),
          { fillChecklist: true },
        ],
      },
    },
  });
  ws.task('g/one', { files: ['src/one.ts'] });
  return ws;
}

async function schedule(ws: Workspace, env: Record<string, string>): Promise<string> {
  const result = await runCli(
    ['schedule', ws.dir, '--cron', EVERY_2S, '--json', '--', '--execution-catalog', ws.catalogFile],
    { env },
  );
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).schedule.id;
}

describe('schedules and the daemon (real processes)', { timeout: 120_000 }, () => {
  it('rejects a bad cron or time zone with exit 2 and stores nothing', async () => {
    const env = { SWITCHYARD_STATE_HOME: mkdtempSync(join(tmpdir(), 'sy-sched-')) };
    const bad = await runCli(['schedule', tmpdir(), '--cron', '61 * * * *'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SY_USAGE');
    expect(bad.stderr).toContain('Invalid cron "61 * * * *"');
    const zone = await runCli(
      ['schedule', tmpdir(), '--cron', '0 2 * * *', '--timezone', 'Mars/Base'],
      {
        env,
      },
    );
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain('Unknown time zone "Mars/Base"');
    expect(existsSync(join(env.SWITCHYARD_STATE_HOME, 'schedules.json'))).toBe(false);
  });

  it('fires `switchyard run` on the workspace, archives the task, and keeps firing after a restart', async () => {
    const ws = workspace();
    const home = mkdtempSync(join(tmpdir(), 'sy-sched-'));
    const env = { SWITCHYARD_STATE_HOME: home };
    const id = await schedule(ws, env);

    const first = new Daemon(env);
    await first.next((e) => e.type === 'daemon.started' && e.schedules === 1);
    const exited = await first.next((e) => e.type === 'schedule.exited' && e.id === id);
    expect(exited.code, readFileSync(join(home, 'logs', `${id}.log`), 'utf8')).toBe(0);
    expect(ws.exists('agent-task/archive/g/one/complete.log')).toBe(true);
    expect(await first.stop()).toBe(0);
    expect(first.events.at(-1)?.type).toBe('daemon.stopped');

    // The last exit recorded is the last run's (a later fire may have been stopped with the daemon).
    const lastExited = first.events.filter((e) => e.type === 'schedule.exited').at(-1);
    const listed = JSON.parse((await runCli(['schedules', '--json'], { env })).stdout);
    expect(listed.schedules).toMatchObject([
      {
        id,
        cron: EVERY_2S,
        workspace: ws.dir,
        lastExit: lastExited?.code,
        runArgs: ['--execution-catalog', ws.catalogFile],
      },
    ]);
    const lastRun = listed.schedules[0].lastRun as string;
    expect(typeof lastRun).toBe('string');

    // Persistence: a new daemon reads the stored schedule and fires it again.
    const second = new Daemon(env);
    await second.next((e) => e.type === 'daemon.started' && e.schedules === 1);
    const fired = await second.next((e) => e.type === 'schedule.fired' && e.id === id);
    expect(Date.parse(fired.at as string)).toBeGreaterThan(Date.parse(lastRun));
    await second.next((e) => e.type === 'schedule.exited' && e.id === id);

    // One daemon per state folder: a second one refuses (exit 1) and names the running one.
    const third = await runCli(['daemon'], { env });
    expect(third.code).toBe(1);
    expect(third.stderr).toContain(`SY_LOCK_HELD`);
    expect(third.stderr).toContain(`Another switchyard daemon (pid ${second.child.pid})`);

    // Unscheduling is picked up by the running daemon.
    const removed = await runCli(['unschedule', id], { env });
    expect(removed.code, removed.stderr).toBe(0);
    await second.next((e) => e.type === 'daemon.reloaded' && e.schedules === 0);
    expect(await second.stop()).toBe(0);
  });

  it('does not start a second run while one is going (the fire counts as missed); SIGTERM interrupts the run cleanly', async () => {
    const ws = workspace({ hold: true });
    const home = mkdtempSync(join(tmpdir(), 'sy-sched-'));
    const env = { SWITCHYARD_STATE_HOME: home };
    const id = await schedule(ws, env);

    const daemon = new Daemon(env);
    await daemon.next((e) => e.type === 'schedule.fired' && e.id === id);
    await daemon.next((e) => e.type === 'schedule.skipped' && e.id === id);
    expect(daemon.events.filter((e) => e.type === 'schedule.fired')).toHaveLength(1);
    const runs = JSON.parse(readFileSync(join(home, 'schedule-runs.json'), 'utf8')).runs[id];
    expect(runs.missed).toBeGreaterThanOrEqual(1);

    // Stopping the daemon interrupts the held run; it ends with the interrupted exit code.
    await fileAppears(ws.dir, 'started');
    expect(await daemon.stop()).toBe(0);
    const exited = daemon.events.find((e) => e.type === 'schedule.exited');
    expect(exited).toMatchObject({ id, code: 130 });
    writeFileSync(ws.path('release'), '');

    const listed = JSON.parse((await runCli(['schedules', '--json'], { env })).stdout);
    expect(listed.schedules[0]).toMatchObject({ id, lastExit: 130 });
    expect(listed.schedules[0].missed).toBeGreaterThanOrEqual(1);
  });
  it('reports the runs missed while the daemon was down, once', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sy-sched-'));
    const env = { SWITCHYARD_STATE_HOME: home };
    // Created 3 days before today's UTC midnight, plus an hour: three daily fires have passed.
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    const createdAt = new Date(midnight.getTime() - 3 * 86_400_000 + 3_600_000).toISOString();
    const stored = {
      id: 's-daily',
      cron: '0 0 * * *',
      timezone: 'UTC',
      workspace: tmpdir(),
      runArgs: [],
      createdAt,
    };
    writeFileSync(
      join(home, 'schedules.json'),
      JSON.stringify({ version: 1, schedules: [stored] }),
    );

    const first = new Daemon(env);
    const missed = await first.next((e) => e.type === 'schedule.missed');
    expect(missed).toMatchObject({ id: 's-daily', count: 3, last: midnight.toISOString() });
    await first.next((e) => e.type === 'daemon.started');
    expect(await first.stop()).toBe(0);
    const listed = JSON.parse((await runCli(['schedules', '--json'], { env })).stdout);
    expect(listed.schedules[0]).toMatchObject({ id: 's-daily', missed: 3, lastRun: null });
    expect(listed.schedules[0].missedAt).toHaveLength(3);

    // Already reported: a restart does not count them again.
    const second = new Daemon(env);
    await second.next((e) => e.type === 'daemon.started');
    expect(await second.stop()).toBe(0);
    expect(second.events.some((e) => e.type === 'schedule.missed')).toBe(false);
  });
  it('a YAML plan is known by its content: re-run by another path it is finished, --again and the schedule run it anew', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker' },
              steps: [{ write: { path: 'src/1.txt', content: 'one\n' } }, { fillChecklist: true }],
            },
          ],
        },
      },
    });
    writeFileSync(
      ws.path('plan.yaml'),
      [
        'version: 1',
        'kind: orchestrate-plan',
        'metadata: { id: nightly, title: Nightly, goal: one task }',
        'lanes: [{ id: "0", label: Work }]',
        'tasks:',
        '  - { id: "1", title: Only, lane: "0", files: [src/1.txt] }',
        '',
      ].join('\n'),
    );
    // Run by hand with the path as typed in the workspace: done.
    const catalog = ['--execution-catalog', ws.catalogFile];
    const first = await runCli(['run', 'plan.yaml', ...catalog], { cwd: ws.dir });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(ws.exists('agent-task/archive/nightly/1/complete.log')).toBe(true);
    // The same plan by its absolute path, from elsewhere: finished, nothing runs (exit 0).
    const again = await runCli(['run', ws.path('plan.yaml'), '--workspace', ws.dir, ...catalog]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('The plan has already finished');
    expect(again.stdout).toContain('`--again` runs it anew');
    const anew = await runCli(['run', './plan.yaml', '--again', ...catalog], { cwd: ws.dir });
    expect(anew.code, anew.stdout + anew.stderr).toBe(0);
    expect(anew.stdout).toMatch(/agent-task\/nightly\.run2\/ \(run 2, anew/);
    expect(ws.exists('agent-task/archive/nightly.run2/1/complete.log')).toBe(true);
    expect(ws.exists('agent-task/archive/nightly/1/complete.log')).toBe(true);

    const home = mkdtempSync(join(tmpdir(), 'sy-sched-'));
    const env = { SWITCHYARD_STATE_HOME: home };
    const stored = await runCli(
      [
        'schedule',
        'plan.yaml',
        '--cron',
        EVERY_2S,
        '--json',
        '--',
        '--execution-catalog',
        ws.catalogFile,
      ],
      { env, cwd: ws.dir },
    );
    expect(stored.code, stored.stderr).toBe(0);
    const { schedule: saved } = JSON.parse(stored.stdout);
    expect(saved).toMatchObject({ plan: ws.path('plan.yaml'), workspace: ws.dir });
    expect(saved.runArgs).toEqual(['--again', ...catalog]);

    // Every fire runs the finished plan anew, in the folder it was scheduled from.
    const daemon = new Daemon(env);
    const log = () => readFileSync(join(home, 'logs', `${saved.id}.log`), 'utf8');
    const exited = await daemon.next((e) => e.type === 'schedule.exited' && e.id === saved.id);
    expect(exited.code, log()).toBe(0);
    const index = daemon.events.indexOf(exited) + 1;
    const next = await daemon.next((e) => e.type === 'schedule.exited' && e.id === saved.id, index);
    expect(next.code, log()).toBe(0);
    expect(await daemon.stop()).toBe(0);
    for (const group of ['nightly.run3', 'nightly.run4'])
      expect(ws.exists(`agent-task/archive/${group}/1/complete.log`), group).toBe(true);
    expect(ws.read('src/1.txt')).toBe('one\n');
  });
});
