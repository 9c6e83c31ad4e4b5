import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openClaimStore } from '../claims/claim-store.js';
import { createEventBus } from '../events/event-bus.js';
import { newTaskState } from '../state/state-schema.js';
import { openStateStore } from '../state/state-store.js';
import { loadWorkspace } from '../workspace/load.js';
import { archivedTaskDir, stateDir as stateDirOf } from '../workspace/paths.js';
import { archiveAnnounced, EVENTS_FILE } from './archive-announcement.js';
import type { DispatchContext, TaskRuntime } from './context.js';
import { runArchiveStage } from './stage-archive.js';
import type { DispatcherOptions } from './types.js';
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

/** One dispatcher's view of the workspace (a fresh one per simulated run, as after a crash). */
async function runOf(workspace: string, onArchived?: () => void) {
  const stateDir = stateDirOf(workspace);
  const store = openStateStore(stateDir);
  const bus = createEventBus({ runId: `run-${Date.now()}`, file: join(stateDir, EVENTS_FILE) });
  if (onArchived) bus.on((e) => e.type === 'task.archived' && onArchived());
  const claims = await openClaimStore(stateDir);
  const model = loadWorkspace(workspace);
  const state = store.read(ID) ?? { ...newTaskState(ID), phase: 'archive' as const };
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
  const rt: TaskRuntime = { id: ID, group: 'core', task, state, busy: true, announced: true };
  const ctx = {
    options: { workspace } as DispatcherOptions,
    workspace,
    stateDir,
    catalog: { schema_version: 1, targets: {}, routes: {} },
    catalogFacts: { source: 'test catalog', revision: 'rev-1', targets: {} },
    store,
    claims,
    claimIndex: new Map(await claims.snapshot()),
    bus,
    workLog: new WorkLogWriter(workspace),
    tasks: new Map([[ID, rt]]),
    archived: new Set<string>(),
    handles: new Map(),
    controlFailures: [],
    signal: new AbortController().signal,
    now: () => new Date(),
    secrets: [],
  } as unknown as DispatchContext;
  return { ctx, rt, store, close: () => bus.close() };
}

const archivedEvents = (workspace: string) =>
  readFileSync(join(stateDirOf(workspace), EVENTS_FILE), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"task.archived"'));

describe('task.archived survives a crash at any point of the archive stage', () => {
  it('is announced while the durable state still says archive (a crash then repeats the stage)', async () => {
    const workspace = approvedTask();
    const seen: string[] = [];
    const run = await runOf(workspace, () => {
      // What a dispatcher killed right now would leave on disk.
      seen.push(JSON.parse(readFileSync(run.store.fileOf(ID), 'utf8')).phase);
    });
    await run.store.write(run.rt.state);
    await runArchiveStage(run.ctx, run.rt);
    run.close();
    expect(seen).toEqual(['archive']);
    expect(run.store.read(ID)?.phase).toBe('done');
    expect(archivedEvents(workspace)).toHaveLength(1);
  });

  it('a run resumed after the announcement does not announce again', async () => {
    const workspace = approvedTask();
    const first = await runOf(workspace);
    await first.store.write(first.rt.state);
    await runArchiveStage(first.ctx, first.rt);
    first.close();
    // The dispatcher died after the event and before `done` was written.
    await first.store.write({ ...first.rt.state, phase: 'archive' });
    expect(existsSync(join(archivedTaskDir(workspace, ID), 'complete.log'))).toBe(true);

    const second = await runOf(workspace);
    expect(second.rt.state.phase).toBe('archive');
    await runArchiveStage(second.ctx, second.rt);
    second.close();
    expect(second.store.read(ID)?.phase).toBe('done');
    expect(archivedEvents(workspace)).toHaveLength(1);
  });

  it('a run resumed after the move but before the announcement announces it once', async () => {
    const workspace = approvedTask();
    const first = await runOf(workspace);
    await first.store.write(first.rt.state);
    await runArchiveStage(first.ctx, first.rt);
    first.close();
    // Same crash point, but the event line never reached the log.
    const events = join(stateDirOf(workspace), EVENTS_FILE);
    writeFileSync(
      events,
      readFileSync(events, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"type":"task.archived"'))
        .join('\n'),
    );
    await first.store.write({ ...first.rt.state, phase: 'archive' });

    const second = await runOf(workspace);
    await runArchiveStage(second.ctx, second.rt);
    second.close();
    expect(second.store.read(ID)?.phase).toBe('done');
    expect(archivedEvents(workspace)).toHaveLength(1);
  });
});

describe('archiveAnnounced', () => {
  it('counts an announcement only after the task’s last attempt event', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-announce-log-'));
    const file = join(dir, EVENTS_FILE);
    const line = (type: string, task: string) =>
      JSON.stringify({ at: 'x', runId: 'r', type, task });
    expect(archiveAnnounced(file, ID)).toBe(false); // no log yet
    writeFileSync(file, `${line('attempt.started', ID)}\n${line('task.archived', 'core/ab')}\n`);
    expect(archiveAnnounced(file, ID)).toBe(false);
    writeFileSync(file, `${line('task.archived', ID)}\n${line('task.admitted', ID)}\n{"torn`);
    expect(archiveAnnounced(file, ID)).toBe(true);
    // Put back by hand and run again: the old announcement is not this archive's.
    writeFileSync(file, `${line('task.archived', ID)}\n${line('attempt.finished', ID)}\n`);
    expect(archiveAnnounced(file, ID)).toBe(false);
  });
});
