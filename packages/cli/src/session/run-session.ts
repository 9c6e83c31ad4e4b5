import {
  type DispatchResult,
  newSessionId,
  type RunEvent,
  type SessionOptions,
  SessionStore,
  type SessionYamlPlan,
  stateDir,
  type WorkspaceModel,
} from '@switchyard/core';

/** The session of one live run (a new one, or the one being resumed). */
export interface RunSession {
  readonly id: string;
  /** Records a run event in the session (events.jsonl); never throws. */
  onEvent(event: RunEvent): void;
  /** Records how the run ended in status.json. */
  finish(outcome: { result: DispatchResult } | { code: number }): Promise<void>;
}

/**
 * Opens the session of a live run, under the workspace lock: `resume` continues an existing
 * session (its status turns running again), otherwise a new one is created with the run's
 * options and the tasks in scope.
 */
export async function openRunSession(
  workspace: string,
  model: WorkspaceModel,
  options: SessionOptions,
  resume: string | undefined,
  yamlPlan?: SessionYamlPlan,
): Promise<RunSession> {
  const store = new SessionStore(stateDir(workspace));
  const id = resume ?? newSessionId();
  if (resume) {
    store.read(resume);
    await store.markRunning(resume);
  } else {
    const tasks = model.tasks
      .filter((t) => !options.taskGroup || t.group === options.taskGroup)
      .map((t) => t.id);
    await store.create({
      schema_version: 1,
      id,
      workspace,
      createdAt: new Date().toISOString(),
      options: Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
      tasks,
      ...(yamlPlan ? { yamlPlan } : {}),
    });
  }
  let eventsBroken = false;
  let recording: Promise<void> = Promise.resolve();
  return {
    id,
    onEvent(event) {
      if (event.type === 'run.started') {
        // Recorded at once: a session killed mid-run still lists the run.
        recording = recording
          .then(async () => {
            const current = store.readStatus(id);
            if (current)
              await store.writeStatus({ ...current, runs: [...current.runs, event.runId] });
          })
          .catch(() => undefined);
      }
      if (eventsBroken) return;
      try {
        store.appendEvent(id, event);
      } catch (error) {
        eventsBroken = true;
        process.stderr.write(
          `session ${id}: events can no longer be recorded (${error instanceof Error ? error.message : String(error)}); the run goes on\n`,
        );
      }
    },
    async finish(outcome) {
      await recording;
      const previous = store.readStatus(id);
      if (!previous) return;
      const now = new Date().toISOString();
      const code = 'result' in outcome ? outcome.result.exitCode : outcome.code;
      await store.writeStatus({
        ...previous,
        state:
          code === 0
            ? 'finished'
            : code === 3
              ? 'blocked'
              : code === 130
                ? 'interrupted'
                : 'failed',
        updatedAt: now,
        finishedAt: now,
        exitCode: code,
        ...('result' in outcome ? { blocked: outcome.result.blocked } : {}),
      });
    },
  };
}
