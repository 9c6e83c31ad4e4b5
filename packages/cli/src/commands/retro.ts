import type { Command } from 'commander';

/** Options of `switchyard retro`. */
export interface RetroOptions {
  workspace?: string;
  run?: string;
  since?: string;
  json?: boolean;
}

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
    .addHelpText(
      'after',
      `
Built only from agent-task/.switchyard/events.jsonl (and the project's price table for
tokens reported without a cost). Each run also writes its retrospective to
agent-task/retros/<date>-<run>.md when it ends.
Exit 0 with a report, 2 for invalid input (an unknown --run, a --since that is no date).

Examples:
  $ switchyard retro
  $ switchyard retro --since 2026-12-01 --json | jq '.targets'`,
    )
    .action(async (opts: RetroOptions) => {
      const core = await import('@switchyard/core');
      const engine = await import('@switchyard/engine');
      const workspace = core.findWorkspaceRoot({
        ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
        isMarker: core.hasConfigFile,
      });
      if (opts.run && opts.since)
        throw new core.SwitchyardError('SY_USAGE', 'use --run or --since, not both');
      if (opts.since && Number.isNaN(Date.parse(opts.since)))
        throw new core.SwitchyardError('SY_USAGE', `--since "${opts.since}" is not a date`, {
          hint: 'write an ISO 8601 date, e.g. 2026-12-01 or 2026-12-01T09:00Z',
        });
      const { openFsStore } = await import('@switchyard/store-fs');
      const { allEvents } = await import('../run-retro.js');
      const store = openFsStore({ workspace });
      const events = await allEvents(store.events).finally(() => store.close());
      const scope = {
        ...(opts.run ? { runId: opts.run } : {}),
        ...(opts.since ? { since: opts.since } : {}),
      };
      if (opts.run && engine.runsInScope(events, scope).length === 0)
        throw new core.SwitchyardError(
          'SY_USAGE',
          `no run ${opts.run} in the events of ${workspace}`,
          {
            hint: 'run `switchyard retro --since 1970-01-01 --json | jq .runs` to list the runs',
          },
        );
      const prices = await core.loadProjectConfig(workspace).then(
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
