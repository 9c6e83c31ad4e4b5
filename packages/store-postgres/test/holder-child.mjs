// A separate process holding the PostgreSQL store, for the contention tests. Modes:
//   claim-race URL SCOPE NAME ROUNDS   waits for "go" on stdin, then races for each round's path
//   publish URL SCOPE NAME JSON        waits for "go", publishes the tasks, prints the outcomes
//   holder URL SCOPE TASK              takes TASK from the backlog, then writes fenced steps
//                                      (state, event, claim) and prints "step N" after each
// Every line it prints is JSON, one per line.
import { createInterface } from 'node:readline';
import { newTaskState } from '@switchyard/core';
import { openPostgresStore } from '../dist/index.js';

const [mode, url, scope, name, arg] = process.argv.slice(2);
const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const go = () =>
  new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.once('line', () => resolve(undefined));
  });

const store = await openPostgresStore({ url, scope, idleInTransactionMs: 1000 });
say({ ready: process.pid });

if (mode === 'claim-race') {
  await go();
  const results = await Promise.all(
    Array.from({ length: Number(arg) }, (_, round) =>
      store.claims.tryClaim(`${name}/t${round}`, [
        `src/round-${round}.ts`,
        `src/${name}-${round}.ts`,
      ]),
    ),
  );
  say({ results: results.map((r) => r.ok) });
} else if (mode === 'publish') {
  const backlog = await store.backlog();
  await go();
  try {
    say({ outcomes: await backlog.publish(JSON.parse(arg), name) });
  } catch (error) {
    say({ error: error.code ?? String(error) });
  }
} else if (mode === 'holder') {
  const backlog = await store.backlog();
  const taken = await backlog.take(`child:${process.pid}`, 60_000);
  if (!taken || taken.entry.task !== name) throw new Error(`took ${taken?.entry.task}`);
  const fence = { task: name, token: taken.lease.token };
  say({ lease: taken.lease });
  for (let step = 1; ; step++) {
    try {
      const state = await store.tasks.get(name);
      await store.tasks.put(
        { ...(state?.value ?? newTaskState(name, new Date())), selfcheckRetries: step },
        { expected: state?.version ?? 0, fence },
      );
      await store.events.append(
        {
          type: 'task.admitted',
          at: new Date().toISOString(),
          runId: 'child',
          task: name,
          planLoop: step,
        },
        { fence },
      );
      await store.claims.tryClaim(name, [`src/child-${step}.ts`], { fence });
      say({ step });
    } catch (error) {
      // A session the server ended (idle in a transaction while frozen) rolled back: try again.
      if (error.code !== 'SY_LEASE_LOST') {
        say({ retry: step, message: String(error.message ?? error) });
        step--;
        continue;
      }
      say({ stopped: step, code: error.code });
      await store.close().catch(() => undefined);
      process.exit(0);
    }
  }
}
await store.close();
