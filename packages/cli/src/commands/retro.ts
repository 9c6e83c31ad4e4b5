import type { RunEvent } from '@switchyard/core';
import type { Command } from 'commander';

/** Options of `switchyard retro`. */
export interface RetroOptions {
  workspace?: string;
  run?: string;
  since?: string;
  json?: boolean;
  store?: string;
}

const RETRO_HELP = `
Built only from agent-task/.switchyard/events.jsonl (and the project's price table for
tokens reported without a cost). Each run also writes its retrospective to
agent-task/retros/<date>-<run>.md when it ends.
On a shared store (--store, SWITCHYARD_STORE or config \`store\`) it reads the events of
every machine from the database; without --run or --since it covers every run that was
still going when the last one started (machines run side by side), and each task lists
its attempts by machine ("machines" in --json: "<host> pid <pid>" -> attempts).
Exit 0 with a report, 2 for invalid input (an unknown --run, a --since that is no date).

Examples:
  $ switchyard retro
  $ switchyard retro --since 2026-12-01 --json | jq '.targets'
  $ switchyard retro --store postgres://sy@db/switchyard --json | jq '.tasks[].machines'`;

/** `switchyard retro`: what a run's figures say, from its persisted events. */
export function registerRetro(program: Command): void {
  program
    .command('retro')
    .description(
      'Retrospective of a run: per task, per target, and suggestions citing the figures.',
    )
    .option(
      '--workspace <dir>',
      'folder holding agent-task/ (default: found from the current folder upward, like git)',
    )
    .option('--run <id>', 'the run to look at (default: the last one)')
    .option('--since <date>', 'every run started at or after this date (ISO 8601)')
    .option('--json', 'print one JSON document')
    .option(
      '--store <url>',
      'a postgres:// store shared by several machines: the runs of every machine (default: SWITCHYARD_STORE, else config `store`)',
    )
    .addHelpText('after', RETRO_HELP)
    .action(async (opts: RetroOptions) => {
      const core = await import('@switchyard/core');
      const { findWorkspaceRoot } = await import('@switchyard/utils');
      const configLib = await import('@switchyard/config');
      const engine = await import('@switchyard/engine');
      const workspace = findWorkspaceRoot({
        ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
        isMarker: configLib.hasConfigFile,
      });
      if (opts.run && opts.since)
        throw new core.SwitchyardError('SY_USAGE', 'use --run or --since, not both');
      if (opts.since && Number.isNaN(Date.parse(opts.since)))
        throw new core.SwitchyardError('SY_USAGE', `--since "${opts.since}" is not a date`, {
          hint: 'write an ISO 8601 date, e.g. 2026-12-01 or 2026-12-01T09:00Z',
        });
      const { allEvents, sharedRetroSince } = await import('../run-retro.js');
      const { sharedStoreSetting } = await import('../store/resolve-store.js');
      const setting = await sharedStoreSetting({
        workspace,
        ...(opts.store !== undefined ? { store: opts.store } : {}),
      });
      let events: RunEvent[];
      if (setting) {
        const { withSharedStore } = await import('../store/resolve-shared.js');
        events = await withSharedStore(workspace, setting, (shared) =>
          allEvents(shared.store.events),
        );
      } else {
        const { openFsStore } = await import('@switchyard/store-fs');
        const store = openFsStore({ workspace });
        events = await allEvents(store.events).finally(() => store.close());
      }
      const since = opts.since ?? (setting && !opts.run ? sharedRetroSince(events) : undefined);
      const scope = {
        ...(opts.run ? { runId: opts.run } : {}),
        ...(since ? { since } : {}),
      };
      if (opts.run && engine.runsInScope(events, scope).length === 0)
        throw new core.SwitchyardError(
          'SY_USAGE',
          `no run ${opts.run} in the events of ${workspace}`,
          {
            hint: 'run `switchyard retro --since 1970-01-01 --json | jq .runs` to list the runs',
          },
        );
      const prices = await configLib.loadProjectConfig(workspace).then(
        (c) => c.config.prices,
        () => ({}),
      );
      const retro = engine.buildRetro(events, scope, prices);
      if (opts.json) {
        const { printJson } = await import('../output.js');
        printJson(retro);
        return;
      }
      process.stdout.write(engine.renderRetro(retro));
    });
}
