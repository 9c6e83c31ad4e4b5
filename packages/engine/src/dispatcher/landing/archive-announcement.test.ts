import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  archivedTaskDir,
  newTaskState,
  type RunEvent,
  stateDir as stateDirOf,
} from '@switchyard/core';
import { createMemoryStore, type MemoryStoreData } from '@switchyard/store-memory';
import { loadWorkspace } from '@switchyard/tasks';
import { describe, expect, it } from 'vitest';
import { createEventBus } from '../../events/event-bus.js';
import { persist } from '../context.js';
import { TaskLeases } from '../shared/task-leases.js';
import type { DispatchContext, DispatcherOptions, TaskRuntime } from '../types.js';
import { archiveAnnounced } from './archive-announcement.js';
import { runArchiveStage } from './stage-archive.js';
import { WorkLogWriter } from './work-log-writer.js';

const ID = 'core/a';

/** A workspace with one approved task (phase `archive`), as the review stage leaves it. */
function approvedTask(): string {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'sy-announce-')));
  const dir = join(workspace, 'agent-task', 'core', 'a');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'PLAN.md'),
    '# core/a\n\n## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [x] done\n',
  );
  writeFileSync(join(dir, 'CODE_REVIEW-1.md'), 'Verdict: APPROVED\n');
  return workspace;
}

/** One dispatcher's view of the workspace (a fresh one per simulated run, as after a crash):
 * the runs of one workspace share the store's data. */
async function runOf(workspace: string, data?: MemoryStoreData, onArchived?: () => void) {
  const stateDir = stateDirOf(workspace);
  const store = createMemoryStore(data ? { data } : {});
  const runId = `run-${Date.now()}`;
  const bus = createEventBus({ runId, log: store.events });
  if (onArchived) bus.on((e) => e.type === 'task.archived' && onArchived());
  const model = loadWorkspace(workspace);
  const stored = await store.tasks.get(ID);
  const state = stored?.value ?? { ...newTaskState(ID), phase: 'archive' as const };
  const task = model.tasks.find((t) => t.id === ID) ?? {
    // Its folder is already in the archive: the stub buildRuntimes makes for it.
    id: ID,
    group: 'core',
    name: 'a',
    dir: join(workspace, 'agent-task', 'core', 'a'),
    planLoops: [],
    reviewLoops: [],
    planFile: '',
    planLoop: 1,
    dependsOn: [],
    writeSet: [],
    checklist: [],
    problems: [],
    valid: true,
  };
  const rt: TaskRuntime = {
    id: ID,
    group: 'core',
    task,
    state,
    version: stored?.version ?? 0,
    busy: true,
    announced: true,
  };
  const ctx = {
    options: { workspace } as DispatcherOptions,
    workspace,
    stateDir,
    catalog: { schema_version: 1, targets: {}, routes: {} },
    catalogFacts: { source: 'test catalog', revision: 'rev-1', targets: {} },
    store,
    claims: store.claims,
    leases: new TaskLeases(store.leases, runId),
    claimIndex: new Map(await store.claims.snapshot()),
    bus,
    workLog: new WorkLogWriter(store.workLog),
    tasks: new Map([[ID, rt]]),
    archived: new Set<string>(),
    handles: new Map(),
    controlFailures: [],
    secrets: [],
    signal: new AbortController().signal,
    now: () => new Date(),
  } as unknown as DispatchContext;
  const close = async () => {
    await bus.flush();
    bus.close();
    await ctx.leases.stop();
  };
  return { ctx, rt, store, close };
}

const archivedEvents = (data: MemoryStoreData) =>
  data.events.filter((e) => e.type === 'task.archived');

/** What a dispatcher that died after its archive but before recording `done` leaves. */
async function crashedBeforeDone(run: Awaited<ReturnType<typeof runOf>>) {
  const stored = await run.store.tasks.get(ID);
  await run.store.tasks.put(
    { ...run.rt.state, phase: 'archive' },
    { expected: stored?.version ?? 0 },
  );
}

describe('task.archived survives a crash at any point of the archive stage', () => {
  it('is announced while the durable state still says archive (a crash then repeats the stage)', async () => {
    const workspace = approvedTask();
    const seen: string[] = [];
    const run = await runOf(workspace, undefined, () => {
      // What a dispatcher killed right now would leave in the store.
      seen.push(run.store.data.tasks.get(ID)?.state.phase ?? 'none');
    });
    await persistNow(run);
    await runArchiveStage(run.ctx, run.rt);
    await run.close();
    expect(seen).toEqual(['archive']);
    expect((await run.store.tasks.get(ID))?.value.phase).toBe('done');
    expect(archivedEvents(run.store.data)).toHaveLength(1);
  });

  it('a run resumed after the announcement does not announce again', async () => {
    const workspace = approvedTask();
    const first = await runOf(workspace);
    await persistNow(first);
    await runArchiveStage(first.ctx, first.rt);
    await first.close();
    // The dispatcher died after the event and before `done` was written.
    await crashedBeforeDone(first);
    expect(existsSync(join(archivedTaskDir(workspace, ID), 'complete.log'))).toBe(true);

    const second = await runOf(workspace, first.store.data);
    expect(second.rt.state.phase).toBe('archive');
    await runArchiveStage(second.ctx, second.rt);
    await second.close();
    expect((await second.store.tasks.get(ID))?.value.phase).toBe('done');
    expect(archivedEvents(second.store.data)).toHaveLength(1);
  });

  it('a run resumed after the move but before the announcement announces it once', async () => {
    const workspace = approvedTask();
    const first = await runOf(workspace);
    await persistNow(first);
    await runArchiveStage(first.ctx, first.rt);
    await first.close();
    // Same crash point, but the event never reached the log.
    const { data } = first.store;
    data.events = data.events.filter((e) => e.type !== 'task.archived');
    await crashedBeforeDone(first);

    const second = await runOf(workspace, data);
    await runArchiveStage(second.ctx, second.rt);
    await second.close();
    expect((await second.store.tasks.get(ID))?.value.phase).toBe('done');
    expect(archivedEvents(data)).toHaveLength(1);
  });
});

describe('archiveAnnounced', () => {
  it('counts an announcement only after the task’s last attempt event', async () => {
    const store = createMemoryStore();
    const event = (type: string, task: string) =>
      ({ at: 'x', runId: 'r', type, task }) as unknown as RunEvent;
    const log = async (...events: RunEvent[]) => {
      store.data.events = [];
      for (const e of events) await store.events.append(e);
    };
    expect(await archiveAnnounced(store.events, ID)).toBe(false); // no log yet
    await log(event('attempt.started', ID), event('task.archived', 'core/ab'));
    expect(await archiveAnnounced(store.events, ID)).toBe(false);
    await log(event('task.archived', ID), event('task.admitted', ID));
    expect(await archiveAnnounced(store.events, ID)).toBe(true);
    // Put back by hand and run again: the old announcement is not this archive's.
    await log(event('task.archived', ID), event('attempt.finished', ID));
    expect(await archiveAnnounced(store.events, ID)).toBe(false);
  });
});

/** Writes the run's view of the task as the review stage left it. */
async function persistNow(run: Awaited<ReturnType<typeof runOf>>) {
  await persist(run.ctx, run.rt);
}
