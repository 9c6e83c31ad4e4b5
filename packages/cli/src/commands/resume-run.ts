import { hasConfigFile } from '@switchyard/config';
import { SwitchyardError } from '@switchyard/core';
import { openFsStore } from '@switchyard/store-fs';
import { findWorkspaceRoot } from '@switchyard/utils';
import { listSessions, readSession, type SessionView } from '../session/session-view.js';

/** Options of `switchyard resume`. */
export interface ResumeOptions {
  workspace?: string;
  json?: boolean;
  monitor?: boolean;
}

/** `switchyard resume [session-id]`: the session run again with its own options. */
export async function resumeCommand(id: string | undefined, opts: ResumeOptions): Promise<void> {
  const workspace = findWorkspaceRoot({
    ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
    isMarker: hasConfigFile,
  });
  const view = await sessionToResume(workspace, id);
  if (!view) {
    throw new SwitchyardError('SY_USAGE', 'This workspace has no session to resume.', {
      hint: 'Start one with `switchyard run`.',
    });
  }
  if (view.state === 'running') {
    throw new SwitchyardError(
      'SY_USAGE',
      `Session ${view.plan.id} is running (pid ${view.status.pid}); nothing to resume.`,
      { hint: 'Watch it with `switchyard status`, or stop it first.' },
    );
  }
  if (view.state === 'finished') {
    process.stderr.write(`session ${view.plan.id} finished (exit 0); nothing to resume\n`);
    return;
  }
  if (view.plan.yamlPlan) return resumeYamlPlan(view, workspace, opts);
  const { taskGroup, with: runWith, maxParallel, executionCatalog } = view.plan.options;
  process.exitCode = await (await import('../live-run.js')).liveRun({
    workspace,
    ...(taskGroup ? { taskGroup } : {}),
    ...(runWith ? { with: runWith } : {}),
    ...(maxParallel !== undefined ? { maxParallel } : {}),
    ...(executionCatalog ? { executionCatalog } : {}),
    ...(opts.json ? { json: true } : {}),
    ...(opts.monitor ? { monitor: true } : {}),
    resumeSession: view.plan.id,
  });
}

/**
 * The session named, else the latest one that did not finish, else the latest. Sessions are
 * this machine's runs (their state is judged by its process table): they are kept in the file
 * store, whichever store the runs share their tasks in.
 */
async function sessionToResume(
  workspace: string,
  id: string | undefined,
): Promise<SessionView | undefined> {
  const store = openFsStore({ workspace });
  return (async () => {
    if (id) return readSession(store.sessions, id);
    const sessions = await listSessions(store.sessions);
    return sessions.filter((s) => s.state !== 'finished').at(-1) ?? sessions.at(-1);
  })().finally(() => store.close());
}

/** A YAML plan's session runs the plan as it started, whatever the file says now. */
async function resumeYamlPlan(
  view: SessionView,
  workspace: string,
  opts: ResumeOptions,
): Promise<void> {
  const { taskGroup, with: runWith, maxParallel, executionCatalog } = view.plan.options;
  const stored = view.plan.yamlPlan!;
  const { planFileDrift, runPlanCommand } = await import('./run-plan.js');
  const drift = planFileDrift(stored);
  if (drift !== 'unchanged')
    process.stderr.write(
      `warning: the plan ${stored.file} was ${drift} after session ${view.plan.id} started; resuming with the plan stored in the session (${view.dir}/plan.json). To run the ${drift === 'edited' ? 'edited' : 'current'} plan, start a new session: switchyard run <plan>\n`,
    );
  return runPlanCommand(
    stored.file,
    {
      workspace,
      ...(runWith ? { with: runWith } : {}),
      ...(maxParallel !== undefined ? { maxParallel } : {}),
      ...(executionCatalog ? { executionCatalog } : {}),
      ...(stored.patchOnly ? { patchOnly: true } : {}),
      ...(opts.json ? { json: true } : {}),
      ...(opts.monitor ? { monitor: true } : {}),
    },
    {
      sessionId: view.plan.id,
      text: stored.source,
      ...(taskGroup ? { group: taskGroup } : {}),
    },
  );
}
