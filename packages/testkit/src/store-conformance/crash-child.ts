// Child process of the conformance suite's crash case: opens the store named on the command
// line, takes a task's lease, then repeats one step (state, event, claim, work-log row) and
// reports each finished step on stdout until it is killed.
import { pathToFileURL } from 'node:url';
import { fenceOf, type Store } from '@switchyard/core';
import { CRASH_TASK, CRASH_TTL_MS } from './crash-steps.js';
import { admitted, taskState, workLogRow } from './samples.js';
import type { ChildOpener } from './types.js';

async function crashChild(opener: ChildOpener): Promise<never> {
  const url = opener.module.startsWith('file:') ? opener.module : pathToFileURL(opener.module).href;
  const open = (await import(url))[opener.exportName] as (
    arg: unknown,
    options: { now: () => number },
  ) => Promise<Store> | Store;
  const store = await open(opener.arg, { now: Date.now });
  const taken = await store.leases.acquire(CRASH_TASK, `child:${process.pid}`, CRASH_TTL_MS);
  if (!taken.ok) throw new Error('the crash task is leased already');
  const fence = fenceOf(taken.lease);
  process.stdout.write(`lease ${taken.lease.token}\n`);
  for (let step = 1; ; step++) {
    await store.tasks.put(taskState(CRASH_TASK, step), { expected: step - 1, fence });
    await store.events.append(admitted(CRASH_TASK, step), { fence });
    await store.claims.tryClaim(CRASH_TASK, [`src/step-${step}.ts`], { fence });
    await store.workLog.append('g', [workLogRow(CRASH_TASK, step)], { fence });
    process.stdout.write(`step ${step}\n`);
  }
}

await crashChild(JSON.parse(process.argv[2] ?? '{}') as ChildOpener);
