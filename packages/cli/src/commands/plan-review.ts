import type { Command } from 'commander';
import type { PlanReviewOptions } from './plan-review-run.js';

/** The `plan` command group, shared with the other `plan` subcommands (created once). */
function planGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'plan') ??
    program.command('plan').description('Work with task plans before they run.')
  );
}

/** `switchyard plan review`: an advisory review of plans by a catalog review target. */
export function registerPlanReview(program: Command): void {
  planGroup(program)
    .command('review')
    .description(
      'Have a review target read the plans before anything runs and report findings by severity (advisory).',
    )
    .argument(
      '[plan]',
      'one plan file (plan.yaml or PLAN.md); default: every task plan of the workspace',
    )
    .option('--workspace <dir>', 'review every active task plan of this workspace')
    .option('--execution-catalog <file>', 'use this catalog instead of the resolved one')
    .option('--with <target>', 'review with this catalog target instead of the review route')
    .option(
      '--route <id>',
      'the review route whose first candidate reviews (default: the standard route of the config routing)',
    )
    .option('--json', 'print one JSON document to stdout')
    .addHelpText(
      'after',
      `
The reviewer looks for an unclear goal, a missing or untestable Definition of Done, a write
set too broad or too narrow, and missing dependencies, and writes findings tagged
[CRITICAL], [MODERATE] or [MINOR] (kept under agent-task/.switchyard/plan-reviews/).
Advisory: exit 0 whatever it finds (1 when the reviewer fails, 2 invalid input).
"switchyard run --review-plans" runs it first and stops (exit 2) on a CRITICAL finding.

Examples:
  $ switchyard plan review
  $ switchyard plan review agent-task/api/add-flag/PLAN.md --json
  $ switchyard plan review --workspace ~/src/app --with claude-opus`,
    )
    .action(async (plan: string | undefined, opts: PlanReviewOptions) =>
      (await import('./plan-review-run.js')).planReviewCommand(plan, opts),
    );
}
