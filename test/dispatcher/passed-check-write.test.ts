import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryStore } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { runEngine } from '../engine/harness.js';
import { until, Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const work = [{ fillChecklist: true }];

type Event = Record<string, unknown> & { type: string };

describe('a passed check left to the next write', { timeout: 60_000 }, () => {
  it('is written when the stage after it cannot start at once (the store shows the phase the task waits in)', async () => {
    const ws = new Workspace();
    ws.catalog({
      only: {
        scenario: {
          cases: [
            approve,
            {
              // g/b's worker holds the one agent slot until the test lets it go.
              when: { task: 'g/b', role: 'worker' },
              steps: [
                { waitFor: 'release.flag' },
                { write: { path: 'src/b.ts', content: 'b\n' } },
                ...work,
              ],
            },
          ],
          steps: [{ write: { path: 'src/a.ts', content: 'a\n' } }, ...work],
        },
      },
    });
    // No definition of done: g/a's checks after its worker all pass and lead to its review.
    ws.task('g/a', { files: ['src/a.ts'] });
    ws.task('g/b', { files: ['src/b.ts'] });
    const store = createMemoryStore();
    const events: Event[] = [];
    const run = runEngine(ws, {
      maxParallel: 1,
      store,
      onEvent: (e) => events.push(e as unknown as Event),
    });
    let phase: string | undefined;
    try {
      // g/b's worker took the slot beside g/a's checks, and then only it runs: g/a's checks
      // passed and its review waits for the slot.
      await until(() => {
        const bStarted = events.findIndex((e) => e.type === 'task.admitted' && e.task === 'g/b');
        return (
          bStarted >= 0 &&
          events
            .slice(bStarted)
            .some(
              (e) => e.type === 'run.progress' && (e.counts as { running: number }).running === 1,
            )
        );
      }, "g/a's checks ending while g/b's worker runs");
      // Written within a second of the pass that could not start its review (the next stage
      // of a task that waits only a moment for a slot writes it instead).
      const poll = setInterval(() => {
        void store.tasks.get('g/a').then((stored) => {
          phase = stored?.value.phase;
        });
      }, 25);
      try {
        await until(() => phase === 'review', "g/a's phase on the store while its review waits");
      } finally {
        clearInterval(poll);
      }
    } finally {
      writeFileSync(join(ws.dir, 'release.flag'), '');
    }
    const result = await run;
    // Not the check it passed: a status or monitor reading the store would show it running.
    expect(phase).toBe('review');
    expect(result.code, result.stdout).toBe(0);
  });
});
