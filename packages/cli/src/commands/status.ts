import type { Command } from 'commander';

/** Options of `switchyard status`. */
export interface StatusOptions {
  workspace?: string;
  json?: boolean;
  sessions?: boolean;
  store?: string;
}

const STATUS_HELP = `
Reads the dispatcher's persisted state (agent-task/.switchyard/), the plans and /proc; it
never talks to a running dispatcher and never changes anything, so it is safe during a run,
after it, and after a crash. "orphaned" marks an agent still running with no dispatcher
watching it: the next \`switchyard run\` re-attaches to it instead of starting it again.
Exit 0 when the report was built, 2 when the folder has no agent-task/.

Examples:
  $ switchyard status
  $ switchyard status --workspace ~/src/app
  $ switchyard status --json | jq '.blocked[] | {task, reason}'
  $ switchyard status --sessions
  $ switchyard status s-20261201T020000Z-1a2b --json
  $ watch -n 2 switchyard status
  $ switchyard status --store postgres://sy@db/switchyard   # every machine's tasks`;

/** `switchyard status`: what runs, waits, is blocked and is done, from persisted state. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('Show what is running (PID, target, since), waiting, blocked (why) and done.')
    .option(
      '--workspace <dir>',
      'folder holding agent-task/ (default: found from the current folder upward, like git)',
    )
    .argument('[session]', 'report on this session only (its state, options and tasks)')
    .option('--sessions', 'list the sessions of the workspace (one per run) instead')
    .option('--json', 'print one JSON document (schema_version 1)')
    .option(
      '--store <url>',
      'a postgres:// store shared by several machines: show its backlog, each task with its machine (default: SWITCHYARD_STORE, else config `store`)',
    )
    .addHelpText('after', STATUS_HELP)
    .action(async (session: string | undefined, opts: StatusOptions) => {
      const { isolationSettings } = await import('@switchyard/config');
      const { findWorkspaceRoot } = await import('@switchyard/utils');
      const { hasConfigFile, loadProjectConfig } = await import('@switchyard/config');
      const { buildStatus, gatherStatus, readStatusFacts } = await import('@switchyard/engine');
      const workspace = findWorkspaceRoot({
        ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
        isMarker: hasConfigFile,
      });
      // A shared store: the backlog of every machine (the local report reads this machine's files).
      const { sharedStoreSetting } = await import('../store/resolve-store.js');
      const setting = await sharedStoreSetting({
        workspace,
        ...(opts.store !== undefined ? { store: opts.store } : {}),
      });
      if (setting && session === undefined && !opts.sessions) {
        const { printSharedStatus } = await import('../store/backlog-status.js');
        return printSharedStatus(workspace, setting, opts.json === true);
      }
      const { openFsStore } = await import('@switchyard/store-fs');
      // A reader beside a running dispatcher: not exclusive, and it writes nothing.
      const store = openFsStore({ workspace });
      const input = await readStatusFacts(store)
        .then((facts) => gatherStatus(workspace, facts))
        .finally(() => store.close());
      // The price table only turns reported tokens into estimates; a bad config loses just that.
      const config = await loadProjectConfig(input.workspace).then(
        (c) => c.config,
        () => undefined,
      );
      input.prices = config?.prices ?? {};
      const diskCap = isolationSettings(config?.isolation).maxDiskBytes;
      if (diskCap) input.worktreeDiskCap = diskCap;
      const report = buildStatus(input);
      if (session !== undefined || opts.sessions) {
        const { printSessionStatus } = await import('../session/session-status.js');
        // Sessions are this machine's runs: the file store's, beside a shared store too.
        const sessions = openFsStore({ workspace });
        await printSessionStatus(sessions.sessions, report, session, opts).finally(() =>
          sessions.close(),
        );
        return;
      }
      const { gatherIsolation, renderIsolation } = await import('../isolation-report.js');
      const isolation = await gatherIsolation(input.workspace, config?.isolation, input.states);
      if (opts.json) {
        const { printJson } = await import('../output.js');
        printJson({ ...report, isolation });
        return;
      }
      const { renderStatus } = await import('../status-render.js');
      process.stdout.write(renderStatus(report) + renderIsolation(isolation));
    });
}
