import type { Command } from 'commander';

/** Options of `switchyard resume`. */
export interface ResumeOptions {
  workspace?: string;
  json?: boolean;
  monitor?: boolean;
}

/** `switchyard resume [session-id]`: continue a crashed, interrupted or blocked session. */
export function registerResume(program: Command): void {
  program
    .command('resume')
    .description(
      'Continue a crashed or interrupted session (default: the latest); nothing done is redone.',
    )
    .argument('[session-id]', 'the session to continue (`switchyard status --sessions` lists them)')
    .option(
      '--workspace <dir>',
      'folder holding agent-task/ (default: found from the current folder upward)',
    )
    .option('--monitor', 'serve the live monitor page for the run')
    .option('--json', 'machine output: JSONL events')
    .addHelpText(
      'after',
      `
Every \`switchyard run\` is a session: agent-task/.switchyard/sessions/<id>/ holds plan.json
(its scope and run options), status.json (running, finished, blocked, interrupted, failed;
"crashed" when its process is gone) and events.jsonl. Resume runs the session again with
the same options (task group, --with, --max-parallel, --execution-catalog) and the same
session id. The engine continues from the persisted state: archived tasks stay archived,
live agents are re-attached, finished attempts are judged from their evidence — nothing
done is run again. --retry-blocked and retry lists are not repeated (use
\`switchyard resolve\` or \`switchyard retry\` for blocked tasks).

A session of a YAML plan keeps the plan text as run in plan.json (\`yamlPlan\`: file,
sha256, source, the parsed plan). Resume runs that stored plan, never the file as it is
now; a plan file edited or deleted since the session started is reported on stderr.

Exit codes as for \`switchyard run\`; 2 when the session is unknown or still running,
0 (with a note) when it already finished.

Examples:
  $ switchyard resume
  $ switchyard resume s-20261201T020000Z-1a2b --json`,
    )
    .action(async (id: string | undefined, opts: ResumeOptions) => {
      const { SwitchyardError } = await import('@switchyard/core');
      const { findWorkspaceRoot } = await import('@switchyard/utils');
      const { hasConfigFile } = await import('@switchyard/config');
      const { openFsStore } = await import('@switchyard/store-fs');
      const { listSessions, readSession } = await import('../session/session-view.js');
      const workspace = findWorkspaceRoot({
        ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
        isMarker: hasConfigFile,
      });
      // Sessions are this machine's runs (their state is judged by its process table): they
      // are kept in the file store, whichever store the runs share their tasks in.
      const store = openFsStore({ workspace });
      const view = await (async () => {
        if (id) return readSession(store.sessions, id);
        const sessions = await listSessions(store.sessions);
        return sessions.filter((s) => s.state !== 'finished').at(-1) ?? sessions.at(-1);
      })().finally(() => store.close());
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
      const { taskGroup, with: runWith, maxParallel, executionCatalog } = view.plan.options;
      const stored = view.plan.yamlPlan;
      if (stored) {
        // A YAML plan's session runs the plan as it started, whatever the file says now.
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
    });
}
