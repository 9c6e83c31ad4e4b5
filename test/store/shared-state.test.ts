import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPROVE, CLI, runCli, type Workspace } from '../dispatcher/helpers.js';
import { git, until } from '../isolation/git-workspace.js';
import { jsonEvents, landed, NO_STORE_ENV, pgMissing, sharedDatabase } from './machines.js';

// What machines on one backlog share besides the tasks: target cool-downs and schedules. One
// PostgreSQL cluster for the file.
if (pgMissing) console.warn(`skipping the shared-state tests: ${pgMissing}`);
const { db, sql, bareRemote, machine, workspace } = sharedDatabase('state');

/** A provider quota error that names its reset time, as Claude Code prints it. */
const quota = (after: string) => [
  {
    print: `API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached. Please try again in ${after}."}}`,
    stream: 'stderr' as const,
  },
  { exit: 1 },
];

/** Each task's worker writes its file. */
const WRITES = ['one', 'two'].map((name) => ({
  when: { role: 'worker', task: `g/${name}` },
  steps: [{ write: { path: `${name}.txt`, content: `${name}\n` } }, { fillChecklist: true }],
}));

describe.skipIf(pgMissing)('machines sharing a PostgreSQL store', { timeout: 240_000 }, () => {
  it("a 429 on machine A cools the target down for machine B: B fails over without starting it, from the store's record", async () => {
    const remote = bareRemote();
    const config = { retry: { baseDelayMs: 5, maxDelayMs: 20 }, store: { url: db.url } };
    const catalog = workspace();
    // Workers on a then b; reviews on r. The provider answers 429 (reset in 1 h) to a's first
    // worker attempt, which is machine A's task; every other attempt succeeds.
    catalog.catalog(
      {
        a: {
          scenario: {
            cases: [
              { when: { role: 'worker', task: 'g/one', attempt: 1 }, steps: quota('1h') },
              ...WRITES,
            ],
          },
        },
        b: { scenario: { cases: WRITES } },
        r: { scenario: { cases: [APPROVE] } },
      },
      ['a', 'b'],
      ['r'],
    );
    const run = (ws: Workspace) =>
      runCli(
        [
          ...['run', '--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
          ...['--json', '--max-parallel', '1'],
        ],
        { env: NO_STORE_ENV },
      );
    const machineA = machine(remote, config);
    machineA.task('g/one', { files: ['one.txt'] });
    const first = await run(machineA);
    expect(first.code, first.stderr + first.stdout.slice(-4000)).toBe(0);
    const eventsA = jsonEvents(first);
    expect(
      eventsA
        .filter((e) => e.type === 'attempt.started' && e.role === 'worker')
        .map((e) => e.target),
    ).toEqual(['a', 'b']);
    // The store holds a's cool-down for every machine, with the provider's reset.
    const [until, reason] = sql(
      "select state->>'coolDownUntil', state->>'reason' from switchyard.targets where target = 'a'",
    ).split('|');
    expect(reason).toBe('provider-quota');
    const startedA = eventsA.find((e) => e.type === 'attempt.started')?.at as string;
    expect(Date.parse(until as string) - Date.parse(startedA)).toBeGreaterThan(50 * 60_000);

    // Machine B, while a cools down (an hour ahead): its task, decided on a, fails over to b
    // before any attempt on a starts, charged nothing, citing the shared record.
    const machineB = machine(remote, config);
    machineB.task('g/two', { files: ['two.txt'] });
    const second = await run(machineB);
    expect(second.code, second.stderr).toBe(0);
    const eventsB = jsonEvents(second);
    const started = eventsB.filter((e) => e.type === 'attempt.started');
    expect(started.map((e) => `${e.role}:${e.target}`)).toEqual(['worker:b', 'review:r']);
    const failover = eventsB.find((e) => e.type === 'target.failover');
    expect(failover).toMatchObject({ task: 'g/two', from: 'a', to: 'b', class: 'provider-quota' });
    expect((failover?.evidence as string[] | undefined)?.[0]).toBe(
      `a: cooling down until ${new Date(until as string).toISOString()} for every machine of the store (provider-quota)`,
    );
    expect(eventsB.indexOf(failover as never)).toBeLessThan(eventsB.indexOf(started[0] as never));
    expect(eventsB.some((e) => e.type === 'attempt.retry-scheduled')).toBe(false);
    expect(landed(remote).sort()).toEqual(['g/one', 'g/two']);
  });

  it('two daemons on one store: every due time of a schedule fires once, on the daemon that claims it', async () => {
    const ws = workspace();
    const added = await runCli(
      [
        ...['schedule', ws.dir, '--cron', '* * * * * *', '--store', db.url, '--json'],
        ...['--', '--dry-run'],
      ],
      { env: NO_STORE_ENV },
    );
    expect(added.code, added.stderr).toBe(0);
    const { id } = JSON.parse(added.stdout).schedule as { id: string };
    type DaemonEvent = { type: string; id?: string; fireAt?: string };
    const daemons = [0, 1].map(() => {
      const events: DaemonEvent[] = [];
      const child = spawn(process.execPath, [CLI, 'daemon', '--json', '--store', db.url], {
        env: {
          ...process.env,
          ...NO_STORE_ENV,
          SWITCHYARD_STATE_HOME: mkdtempSync(join(tmpdir(), 'sy-daemon-')),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let buffer = '';
      child.stdout.on('data', (d) => {
        buffer += d;
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) if (line.startsWith('{')) events.push(JSON.parse(line));
      });
      const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
      return { child, events, closed };
    });
    // Each daemon's answer to a due time: it claimed it (fired, or skipped while its run went
    // on), or the other daemon had (taken).
    const claimedBy = (events: DaemonEvent[]) =>
      new Set(
        events
          .filter(
            (e) => e.id === id && (e.type === 'schedule.fired' || e.type === 'schedule.skipped'),
          )
          .map((e) => e.fireAt),
      );
    const seenBy = (events: DaemonEvent[]) =>
      new Set(
        events.filter((e) => e.id === id && e.fireAt !== undefined).map((e) => e.fireAt as string),
      );
    const both = () => {
      const [one, two] = daemons.map((d) => seenBy(d.events)) as [Set<string>, Set<string>];
      return [...one].filter((t) => two.has(t));
    };
    try {
      await until(() => both().length >= 3, 'three due times answered by both daemons');
    } finally {
      for (const d of daemons) d.child.kill('SIGTERM');
    }
    expect(await Promise.all(daemons.map((d) => d.closed))).toEqual([0, 0]);
    const [claimsOne, claimsTwo] = daemons.map((d) => claimedBy(d.events)) as [
      Set<string | undefined>,
      Set<string | undefined>,
    ];
    // No due time was claimed by both; each one both answered was claimed by exactly one.
    expect([...claimsOne].filter((t) => claimsTwo.has(t))).toEqual([]);
    for (const time of both())
      expect(Number(claimsOne.has(time)) + Number(claimsTwo.has(time))).toBe(1);
    const taken = daemons.flatMap((d) => d.events.filter((e) => e.type === 'schedule.taken'));
    expect(taken.length).toBeGreaterThanOrEqual(3);
    // The store's record holds the last claimed time (no daemon moved it back).
    const claimed = [...claimsOne, ...claimsTwo].filter((t): t is string => t !== undefined).sort();
    const listed = await runCli(['schedules', '--store', db.url, '--json'], { env: NO_STORE_ENV });
    expect(listed.code, listed.stderr).toBe(0);
    const shown = JSON.parse(listed.stdout) as { schedules: { id: string; lastRun: string }[] };
    expect(shown.schedules.find((s) => s.id === id)?.lastRun).toBe(claimed.at(-1));
    const removed = await runCli(['unschedule', id, '--store', db.url], { env: NO_STORE_ENV });
    expect(removed.code, removed.stderr).toBe(0);
    const after = await runCli(['schedules', '--store', db.url, '--json'], { env: NO_STORE_ENV });
    expect(JSON.parse(after.stdout).schedules).toEqual([]);
  });

  it('a definition of done that fails on the source is rolled back inside the apply turn: nothing reaches the remote, every machine sees the rollback, the retry lands once', async () => {
    const remote = bareRemote();
    const config = { retry: { baseDelayMs: 5, maxDelayMs: 20 }, store: { url: db.url } };
    const catalog = workspace();
    // Fails once on the source checkout (branch main), never in the task's worktree.
    const check = catalog.path('.scenario-check.cjs');
    const flag = catalog.path('.scenario-failed-once');
    writeFileSync(
      check,
      `const { execSync } = require('node:child_process');
const fs = require('node:fs');
const branch = execSync('git rev-parse --abbrev-ref HEAD').toString().trim();
if (branch === 'main' && !fs.existsSync(${JSON.stringify(flag)})) {
  fs.writeFileSync(${JSON.stringify(flag)}, 'failed');
  console.error('the source check fails this once');
  process.exit(1);
}
`,
    );
    catalog.catalog(
      {
        w: {
          scenario: {
            cases: ['r', 's'].map((name) => ({
              when: { role: 'worker', task: `g/${name}` },
              steps: [
                { write: { path: `${name}.txt`, content: `${name}\n` } },
                { fillChecklist: true },
              ],
            })),
          },
        },
        r: { scenario: { cases: [APPROVE] } },
      },
      ['w'],
      ['r'],
    );
    const done = { command: `${process.execPath} ${check}`, assertion: 'exit code 0' };
    const machineA = machine(remote, config);
    machineA.task('g/r', { files: ['r.txt'], done });
    const machineB = machine(remote, config);
    machineB.task('g/s', { files: ['s.txt'], done });
    const run = (ws: Workspace) =>
      runCli(
        [
          ...['run', '--workspace', ws.dir, '--execution-catalog', catalog.catalogFile],
          ...['--json', '--max-parallel', '1'],
        ],
        { env: NO_STORE_ENV },
      );
    const results = await Promise.all([run(machineA), run(machineB)]);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    // One task's first apply failed its source check and was rolled back (whichever machine
    // applied first met the failing check).
    const rolledBack = results
      .flatMap((r) => jsonEvents(r))
      .filter((e) => e.type === 'task.isolation' && e.step === 'rolled-back');
    expect(rolledBack).toHaveLength(1);
    const commit = rolledBack[0]?.commit as string;
    // The rolled-back commit never reached the remote; each task landed once.
    expect(() => git(remote, 'cat-file', '-e', `${commit}^{commit}`)).toThrow();
    expect(landed(remote).sort()).toEqual(['g/r', 'g/s']);
    // Every machine reads the rollback from the store's event log.
    expect(
      sql(
        `select count(*) from switchyard.events where event->>'type' = 'task.isolation' and event->>'step' = 'rolled-back' and event->>'commit' = '${commit}'`,
      ),
    ).toBe('1');
  });
});
