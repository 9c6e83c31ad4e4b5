import type {
  RunEvent,
  SessionOptions,
  SessionPlan,
  SessionPort,
  SessionTask,
  SessionYamlPlan,
} from '@switchyard/core';
import type { DispatchResult } from '@switchyard/engine';
import { sessionTaskAfter } from '@switchyard/engine';
import { newSessionId } from '@switchyard/store-fs';
import type { WorkspaceModel } from '@switchyard/tasks';
import { readSession, runningStatus } from './session-view.js';

/** Least time between two `status.json` snapshots written while the run goes (ms). */
const SNAPSHOT_INTERVAL_MS = 1000;

/** The session of one live run (a new one, or the one being resumed). */
export interface RunSession {
  readonly id: string;
  /** The session's folder (plan.json, status.json, events.jsonl, monitor-server.json). */
  readonly dir: string;
  /** What the session runs (its plan.json). */
  readonly plan: SessionPlan;
  /** Records a run event in the session (events.jsonl, the status snapshot); never throws. */
  onEvent(event: RunEvent): void;
  /** Records the monitor this run serves (monitor-server.json); `stopped` when it closed. */
  recordMonitor(monitor: { url: string; port: number }, stopped?: boolean): Promise<void>;
  /** Records how the run ended in status.json. */
  finish(outcome: { result: DispatchResult } | { code: number }): Promise<void>;
}

/**
 * Opens the session of a live run in `sessions` (the file store's), under the workspace lock:
 * `resume` continues an existing session (its status turns running again), otherwise a new
 * one is created with the run's options and the tasks in scope. While the run goes, the
 * status keeps a snapshot of every task's state and the counts (written at most once a
 * second, and when the run ends).
 */
export async function openRunSession(
  sessions: SessionPort,
  workspace: string,
  model: WorkspaceModel,
  options: SessionOptions,
  resume: string | undefined,
  yamlPlan?: SessionYamlPlan,
): Promise<RunSession> {
  const id = resume ?? newSessionId();
  // A resumed session's task snapshot carries on from where its last run left it.
  const { plan, tasks } = await startSession(sessions, id, resume, () =>
    newPlan(id, workspace, model, options, yamlPlan),
  );
  const startedAt = new Date().toISOString();
  let counts: Record<string, number> | undefined;
  let runs: string[] = [];
  let recording: Promise<void> = Promise.resolve();
  const events = eventAppender(sessions, id);
  let snapshotDue: NodeJS.Timeout | undefined;
  /** Writes the status with the run ids and task snapshot so far (serialized, never throws). */
  const writeSnapshot = () => {
    recording = recording
      .then(async () => {
        const current = await sessions.getStatus(id);
        if (current)
          await sessions.putStatus({
            ...current,
            runs: [...new Set([...current.runs, ...runs])],
            updatedAt: new Date().toISOString(),
            tasks: { ...tasks },
            ...(counts ? { counts } : {}),
          });
      })
      .catch(() => undefined);
  };
  const scheduleSnapshot = () => {
    snapshotDue ??= setTimeout(() => {
      snapshotDue = undefined;
      writeSnapshot();
    }, SNAPSHOT_INTERVAL_MS);
    snapshotDue.unref();
  };
  return {
    id,
    dir: sessions.locate(id),
    plan,
    onEvent(event) {
      if (event.type === 'run.started') {
        // Recorded at once: a session killed mid-run still lists the run.
        runs = [...runs, event.runId];
        writeSnapshot();
      } else if (event.type === 'run.progress' || event.type === 'run.finished') {
        counts = { ...event.counts };
        scheduleSnapshot();
      } else if ('task' in event && typeof event.task === 'string') {
        const next = sessionTaskAfter(event, tasks[event.task]);
        if (next) {
          tasks[event.task] = next;
          scheduleSnapshot();
        }
      }
      events.append(event);
    },
    recordMonitor: (monitor, stopped = false) =>
      recordSessionMonitor(sessions, id, startedAt, monitor, stopped),
    async finish(outcome) {
      if (snapshotDue) clearTimeout(snapshotDue);
      snapshotDue = undefined;
      writeSnapshot();
      await recording;
      await events.settled();
      await writeFinalStatus(sessions, id, outcome);
    },
  };
}

/**
 * The plan and task snapshot of the session: a resumed one's, its status turned running again,
 * or a new one created with `plan()`.
 */
async function startSession(
  sessions: SessionPort,
  id: string,
  resume: string | undefined,
  plan: () => SessionPlan,
): Promise<{ plan: SessionPlan; tasks: Record<string, SessionTask> }> {
  if (resume) {
    const view = await readSession(sessions, resume);
    const tasks: Record<string, SessionTask> = {};
    Object.assign(tasks, view.status.tasks ?? {});
    await sessions.putStatus(runningStatus(resume, view.status));
    return { plan: view.plan, tasks };
  }
  const created = plan();
  await sessions.create(created, runningStatus(id, undefined));
  return { plan: created, tasks: {} };
}

/** A new session's plan: the run's options and the tasks in scope. */
function newPlan(
  id: string,
  workspace: string,
  model: WorkspaceModel,
  options: SessionOptions,
  yamlPlan: SessionYamlPlan | undefined,
): SessionPlan {
  const tasks = model.tasks
    .filter((t) => !options.taskGroup || t.group === options.taskGroup)
    .map((t) => t.id);
  return {
    schema_version: 1,
    id,
    workspace,
    createdAt: new Date().toISOString(),
    options: Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    tasks,
    ...(yamlPlan ? { yamlPlan } : {}),
  };
}

/**
 * Appends run events to the session (each keeps its call order in the store). The first
 * failure is reported once and later events are dropped: the run goes on.
 */
function eventAppender(sessions: SessionPort, id: string) {
  let broken = false;
  // Event appends under way; the end of the run waits for them.
  const appending = new Set<Promise<void>>();
  return {
    append(event: RunEvent): void {
      if (broken) return;
      const append = sessions.appendEvent(id, event).catch((error: unknown) => {
        if (broken) return;
        broken = true;
        process.stderr.write(
          `session ${id}: events can no longer be recorded (${error instanceof Error ? error.message : String(error)}); the run goes on\n`,
        );
      });
      appending.add(append);
      void append.finally(() => appending.delete(append));
    },
    async settled(): Promise<void> {
      while (appending.size > 0) await Promise.allSettled([...appending]);
    },
  };
}

/** Writes monitor-server.json; a failure is reported, never thrown. */
async function recordSessionMonitor(
  sessions: SessionPort,
  id: string,
  startedAt: string,
  monitor: { url: string; port: number },
  stopped: boolean,
): Promise<void> {
  const now = new Date().toISOString();
  const previous = stopped ? await sessions.getMonitor(id).catch(() => undefined) : undefined;
  await sessions
    .putMonitor(id, {
      schema_version: 1,
      url: monitor.url,
      port: monitor.port,
      pid: process.pid,
      startedAt: stopped ? (previous?.startedAt ?? startedAt) : now,
      ...(stopped ? { stoppedAt: now } : {}),
    })
    .catch((error: unknown) =>
      process.stderr.write(
        `session ${id}: monitor-server.json could not be written (${error instanceof Error ? error.message : String(error)})\n`,
      ),
    );
}

/** Records how the run ended: its state from the exit code, and the blocked tasks. */
async function writeFinalStatus(
  sessions: SessionPort,
  id: string,
  outcome: { result: DispatchResult } | { code: number },
): Promise<void> {
  const previous = await sessions.getStatus(id);
  if (!previous) return;
  const now = new Date().toISOString();
  const code = 'result' in outcome ? outcome.result.exitCode : outcome.code;
  await sessions.putStatus({
    ...previous,
    state:
      code === 0 ? 'finished' : code === 3 ? 'blocked' : code === 130 ? 'interrupted' : 'failed',
    updatedAt: now,
    finishedAt: now,
    exitCode: code,
    ...('result' in outcome ? { blocked: outcome.result.blocked } : {}),
  });
}
