import type { PermissionLevel } from '@switchyard/core/dry-run';
import { type Command, Option } from 'commander';
import type { InitCommandOptions } from './init-run.js';

/** The `permissions` levels (core's PERMISSION_LEVELS; spelled here so `--help` loads no core). */
const PERMISSION_LEVELS = [
  'edit',
  'edit+shell',
  'all',
] as const satisfies readonly PermissionLevel[];

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
    .addOption(
      new Option(
        '--permissions <level>',
        'what agents may do without asking: edit files, edit+shell (also run commands), all',
      ).choices(PERMISSION_LEVELS),
    )
    .option('--catalog <file>', 'where to write the catalog', 'execution-catalog.json')
    .addOption(
      new Option(
        '--sandbox <mode>',
        'bwrap: run every agent in a bubblewrap sandbox (checked to work here); none: do not',
      ).choices(['bwrap', 'none']),
    )
    .option('--no-setup', 'do not propose a worktree set-up from the lockfiles found')
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

It also asks what agents may do without asking (every target's "permissions"): "edit"
files (the default), "edit+shell" (also run commands: tests, installs) or "all". Each
agent's plugin turns the level into its CLI's flags (Claude Code --permission-mode /
--allowedTools, Codex --sandbox, Gemini CLI and Qwen Code --approval-mode, Copilot
--allow-tool), so the catalog never carries them.

Writes the catalog in the compact form ("defaults" and only the routes that differ; see
\`switchyard catalog show --expanded\` for the full form), with your choices first in their
lanes and the other installed targets behind them as failover, and switchyard.config.json with
"executionCatalog" and the default "routing" (PLAN complexity: routine/standard/complex ->
cloud-G08/cloud-G04/cloud-G01). A local-* route never gets a cloud target.

When bubblewrap (bwrap) works here, it also offers the sandbox: each agent attempt then sees
the file system read-only except its worktree, its attempt and task folders, a private /tmp
and its own CLI's folders, with credential folders (~/.ssh, ~/.aws, …) hidden. --sandbox
bwrap asks for it (refused, with the fix, when bwrap cannot run), --sandbox none declines.

Each task works in a git worktree of its own (outside the repository, under
~/.cache/switchyard/worktrees): one with only the tracked files. From the lockfiles it finds
(pnpm, npm, yarn, bun, uv, poetry, cargo, go) init proposes "isolation.setup", the command
that installs the dependencies into each new worktree from the package manager's shared
store or cache (e.g. pnpm install --frozen-lockfile --prefer-offline), and writes it unless
the config has "isolation" already (on a terminal it asks first; --no-setup declines).

Exit codes: 0 written, 2 invalid input (unknown target, files exist without --force).

Examples:
  $ switchyard init
  $ switchyard init --yes
  $ switchyard init --yes --fast codex-gpt-5 --complex claude-opus --review gemini-pro
  $ switchyard init --yes --sandbox bwrap`,
    )
    .action(async (opts: InitCommandOptions) => (await import('./init-run.js')).runInit(opts));
}
