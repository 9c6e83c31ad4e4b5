import { describe, expect, it } from 'vitest';
import { APPROVE, runCli, type Workspace } from '../dispatcher/helpers.js';
import { jsonEvents, landed, NO_STORE_ENV, pgMissing, sharedDatabase } from './machines.js';

// What machines on one backlog share besides the tasks: target cool-downs. One PostgreSQL
// cluster for the file.
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
});
