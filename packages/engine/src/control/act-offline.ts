import { realpathSync } from 'node:fs';
import { resolveCatalog } from '@switchyard/config';
import { type Store, SwitchyardError, stateDir as stateDirOf } from '@switchyard/core';
import { readLockHolder } from '@switchyard/store-fs';
import { isSameProcessAlive } from '@switchyard/utils';
import { catalogSourceLabel } from '../dispatcher/types.js';
import { resolveEscalation } from '../escalation/resolve-escalation.js';
import { createEventBus } from '../events/event-bus.js';
import {
  type Actor,
  actionEvent,
  actionRow,
  type HumanActionOutcome,
  type HumanActionRequest,
  refused,
} from './human-action.js';

/**
 * An action when no run of this process is going: retry, skip and resolve are
 * `switchyard resolve --retry|--skip` (under the workspace lock, so refused while a run of
 * another process holds it); stop-run stops another process's run as Ctrl-C in its terminal
 * does (SIGINT to the lock holder); stop-task needs the run's own monitor. Recorded in the
 * event log and the task's work log of `store`, the workspace's store (not exclusive: a run
 * of another process may hold the workspace).
 */
export async function actOffline(
  workspace: string,
  store: Store,
  request: HumanActionRequest,
  actor: Actor,
  now = new Date(),
): Promise<HumanActionOutcome> {
  const root = realpathSync(workspace);
  const stateDir = stateDirOf(root);
  const holder = readLockHolder(stateDir);
  const alive = holder && isSameProcessAlive({ pid: holder.pid, startToken: holder.startToken });
  if (request.action === 'stop-run') {
    if (!holder || !alive) throw refused('No run is going.', 'Nothing to stop.');
    if (holder.pid === process.pid) throw refused('The run is ending.', 'Nothing more to stop.');
    const detail = `asked the run of process ${holder.pid} to stop (as Ctrl-C in its terminal)`;
    await record(store, request, actor, detail, now);
    process.kill(holder.pid, 'SIGINT');
    return { action: request.action, detail };
  }
  if (request.action === 'stop-task')
    throw refused(
      alive
        ? `The run of process ${holder!.pid} holds the workspace; this monitor cannot reach its tasks.`
        : 'No run is going: nothing runs to stop.',
      alive
        ? 'Stop the task from the monitor of that run (`switchyard run --monitor`), or stop the run.'
        : 'A blocked task can be retried or skipped.',
    );
  const answer = request.action === 'resolve' ? request.answer! : request.action;
  let catalogFacts: Parameters<typeof resolveEscalation>[0]['catalogFacts'];
  if (answer === 'retry') {
    // As `switchyard resolve --retry`: a decision the current catalog no longer supports is
    // made again on the next run (an unreadable catalog keeps the decisions).
    try {
      const catalog = await resolveCatalog({ cwd: root, checkExecutables: false });
      catalogFacts = {
        source: catalogSourceLabel(catalog),
        revision: catalog.revision,
        targets: catalog.catalog.targets,
      };
    } catch {
      catalogFacts = undefined;
    }
  }
  try {
    await resolveEscalation({
      workspace: root,
      store,
      task: request.task!,
      action: answer,
      now,
      ...(actor.by ? { by: actor.by } : {}),
      ...(request.note ? { note: request.note } : {}),
      ...(catalogFacts ? { catalogFacts } : {}),
    });
  } catch (error) {
    if (SwitchyardError.is(error) && (error.code === 'SY_USAGE' || error.code === 'SY_LOCK_HELD'))
      throw refused(
        error.message,
        error.code === 'SY_LOCK_HELD'
          ? 'A run of another process holds the workspace: act from its monitor (`switchyard run --monitor`), or when it ended.'
          : (error.hint ?? ''),
      );
    throw error;
  }
  const detail =
    answer === 'retry'
      ? 'retried: it runs with a fresh failure budget on the next `switchyard run`'
      : 'skipped: it stays blocked and its dependents keep waiting';
  await record(store, request, actor, detail, now);
  return { action: request.action, task: request.task!, detail };
}

/**
 * The event (on a bus of its own, into the store's event log) and the work-log row, each
 * stored (the row fsynced) before this resolves.
 */
async function record(
  store: Store,
  request: HumanActionRequest,
  actor: Actor,
  detail: string,
  now: Date,
): Promise<void> {
  const bus = createEventBus({
    runId: `human-${now.toISOString().replace(/[-:.]/g, '')}`,
    log: store.events,
    now: () => now,
  });
  bus.emit(actionEvent(request, actor, detail));
  await bus.flush();
  bus.close();
  if (!request.task) return;
  const state = (await store.tasks.get(request.task))?.value;
  const group = request.task.slice(0, request.task.indexOf('/'));
  await store.workLog.append(group, [
    actionRow(request, actor, { id: request.task, planLoop: state?.planLoop ?? 1 }, now),
  ]);
  await store.workLog.flush();
}
