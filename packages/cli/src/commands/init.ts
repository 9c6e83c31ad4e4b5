import { type Command, Option } from 'commander';

/** Options of `switchyard init`. */
export interface InitCommandOptions {
  workspace?: string;
  yes?: boolean;
  fast?: string;
  standard?: string;
  complex?: string;
  review?: string;
  catalog: string;
  force?: boolean;
  json?: boolean;
  /** `bwrap`: contain every agent attempt in a bubblewrap sandbox; `none`: do not. */
  sandbox?: 'bwrap' | 'none';
}

/** `switchyard init`: set up a project (catalog + project config), asking on a terminal. */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'Set up a project: choose the agent CLIs and models for fast, standard and high-reasoning work and for review; writes the catalog and the project config.',
    )
    .option('--workspace <dir>', 'the project folder (default: the current folder)')
    .option('-y, --yes', 'ask nothing: use the flags below, else what the detected agents offer')
    .addOption(new Option('--fast <target>', 'target for routine work (routes cloud-G08…G10)'))
    .addOption(new Option('--standard <target>', 'target for standard work (cloud-G04…G07)'))
    .addOption(new Option('--complex <target>', 'target for high-reasoning work (cloud-G01…G03)'))
    .addOption(new Option('--review <target>', 'target for reviews (every review route)'))
    .option('--catalog <file>', 'where to write the catalog', 'execution-catalog.json')
    .addOption(
      new Option(
        '--sandbox <mode>',
        'bwrap: run every agent in a bubblewrap sandbox (checked to work here); none: do not',
      ).choices(['bwrap', 'none']),
    )
    .option(
      '--force',
      'overwrite an existing catalog and update an existing switchyard.config.json',
    )
    .option('--json', 'print one JSON document to stdout (implies --yes)')
    .addHelpText(
      'after',
      `
Detects the agent CLIs on PATH (claude, codex, gemini, qwen, copilot) and offers the
catalog targets (agent + model) they can run. On a terminal it asks one question per kind
of work; with --yes, --json, or without a terminal (scripts, CI) it asks nothing and uses
the flags, else the first installed candidate of each lane of the bundled catalog.

Writes the catalog (as "catalog init" does, with your choices first in their lanes and the
other installed targets behind them as failover) and switchyard.config.json with
"executionCatalog" and the default "routing" (PLAN complexity: routine/standard/complex ->
cloud-G08/cloud-G04/cloud-G01). A local-* route never gets a cloud target.

When bubblewrap (bwrap) works here, it also offers the sandbox: each agent attempt then sees
the file system read-only except its worktree, its attempt and task folders, a private /tmp
and its own CLI's folders, with credential folders (~/.ssh, ~/.aws, …) hidden. --sandbox
bwrap asks for it (refused, with the fix, when bwrap cannot run), --sandbox none declines.

Exit codes: 0 written, 2 invalid input (unknown target, files exist without --force).

Examples:
  $ switchyard init
  $ switchyard init --yes
  $ switchyard init --yes --fast codex-gpt-5 --complex claude-opus --review gemini-pro
  $ switchyard init --yes --sandbox bwrap`,
    )
    .action(async (opts: InitCommandOptions) => (await import('./init-run.js')).runInit(opts));
}
