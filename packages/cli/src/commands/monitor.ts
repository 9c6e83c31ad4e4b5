import type { Command } from 'commander';
import { parsePort } from '../monitor-server.js';

/** Options of `switchyard monitor`. */
export interface MonitorOptions {
  workspace?: string;
  port?: number;
  host?: string;
  json?: boolean;
  readOnly?: boolean;
  store?: string;
}

const MONITOR_HELP = `
Prints monitor_url (http://127.0.0.1:<port>/?token=<token>) and serves until Ctrl-C.
The page follows agent-task/.switchyard/ (events.jsonl, task state, claims, the lock), so
it shows a run in progress, a finished one, or one whose dispatcher died, and keeps up
across dispatcher restarts; it needs no running dispatcher.
Actions from the page: retry or skip a blocked task and resolve an escalation with an
answer (as \`switchyard resolve\`: refused while a run of another process holds the
workspace), stop the run of another process (as Ctrl-C in its terminal). Stopping a task
needs the run's own page (\`switchyard run --monitor\`). Each action is recorded in the
event log and the task's work log; --read-only refuses them all.
Security: it listens on 127.0.0.1 only, every request needs the URL's token and a
127.0.0.1/localhost Host header, an action also the page's own Origin and the token in
a header; it serves no external resource and masks the targets' environment values.
Reach it from another machine with an SSH tunnel.

On a shared store (--store, SWITCHYARD_STORE or config \`store\`) the monitor, on any
machine, shows every machine's tasks with their status in the shared backlog (archived,
blocked, running, waiting) and the machine that ran them, even before their archive
reaches this clone (states, claims, escalations from the database; plans from this clone
when it has them: a plan, state or diff only another machine has is answered with a
message naming that machine) and follows the store's events table (LISTEN/NOTIFY): each
attempt in the page's history names its machine, and GET /log?token=… is a server-sent
event stream of every machine's run events, each with \`id: <position>\` and its
"machine" ("<host> pid <pid>"); a reconnect with a Last-Event-ID header (an EventSource
sends it) or ?after=N resumes right after that position: nothing missed,
nothing repeated. --json adds "store" and "scope" to the first line.
Exit 0 when stopped with Ctrl-C, 2 on a bad workspace, port or host.

Examples:
  $ switchyard monitor
  $ switchyard monitor --workspace ~/src/app --port 8765
  $ switchyard run --monitor            # the same page, started with the run
  $ switchyard monitor --store postgres://sy@db/switchyard   # every machine's events on /log`;

/** `switchyard monitor`: the live browser page of a workspace's run, from persisted state. */
export function registerMonitor(program: Command): void {
  program
    .command('monitor')
    .description(
      'Serve a live browser page of the workspace run (DAG, failovers, reviews, tokens, cost).',
    )
    .option(
      '--workspace <dir>',
      'repository root holding agent-task/ (default: found from the current folder upward)',
    )
    .option('--port <n>', 'port on 127.0.0.1 (default: a random free port)', parsePort)
    .option('--host <address>', 'bind address; only 127.0.0.1 is accepted')
    .option('--json', 'print the URL as one JSON line {"type":"monitor.started","monitor_url":…}')
    .option('--read-only', 'the page only shows: retry, skip, resolve and stop are refused')
    .option(
      '--store <url>',
      'a postgres:// store shared by several machines: follow the events of every machine live (default: SWITCHYARD_STORE, else config `store`)',
    )
    .addHelpText('after', MONITOR_HELP)
    .action(async (opts: MonitorOptions) => {
      const { startAnnouncedMonitor, untilInterrupted } = await import('../monitor-server.js');
      const { commandWorkspace } = await import('../command-workspace.js');
      // Found from the current folder upward like the other commands (none: refused below).
      const workspace = await commandWorkspace(opts.workspace);
      const { sharedStoreSetting } = await import('../store/resolve-store.js');
      const setting = await sharedStoreSetting({
        workspace,
        ...(opts.store !== undefined ? { store: opts.store } : {}),
      });
      const { openSharedStore } = await import('../store/shared-backlog.js');
      const shared = setting ? await openSharedStore(workspace, setting) : undefined;
      const { readStatusFacts } = await import('@switchyard/engine');
      try {
        const server = await startAnnouncedMonitor(workspace, {
          ...opts,
          ...(shared
            ? {
                eventFeed: {
                  follow: (after, onEvent) => shared.store.followEvents(after, onEvent),
                },
                // Where each task stands comes from the backlog (every machine's tasks).
                sharedFacts: async () => ({
                  ...(await readStatusFacts(shared.store, { events: false })),
                  backlog: await shared.backlog.list(),
                }),
                announce: { store: shared.store.location, scope: shared.scope },
              }
            : {}),
        });
        await untilInterrupted();
        await server.close();
      } finally {
        await shared?.store.close();
      }
    });
}
