import { EXIT } from '../exit-codes.js';
import { renderPlanReview, reviewPlans } from './plan-review-run.js';
import type { RunOptions } from './run-options.js';

/**
 * `run --review-plans`: the plan review before the run. Findings go to stderr (stdout stays
 * the run's, `--json` included); a CRITICAL finding stops the run with exit 2. True when the
 * run may go on.
 */
export async function reviewPlansFirst(opts: RunOptions): Promise<boolean> {
  const report = await reviewPlans(undefined, {
    ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
    ...(opts.executionCatalog !== undefined ? { executionCatalog: opts.executionCatalog } : {}),
  });
  if (opts.json)
    process.stderr.write(`${JSON.stringify({ type: 'plan-review.finished', ...report })}\n`);
  else process.stderr.write(renderPlanReview(report));
  if (!report.critical) return true;
  process.stderr.write(
    `run stopped: the plan review found ${report.counts.critical} CRITICAL finding(s); fix the plans (findings: ${report.findingsFile}) or run without --review-plans\n`,
  );
  process.exitCode = EXIT.INVALID_INPUT;
  return false;
}

/**
 * The advisory plan review a YAML plan gets before its run (seed 003: review-plan runs on
 * structured plans): the findings go to stderr (`--json`: one `plan-review.finished` line),
 * and nothing it finds or fails stops the run; `--no-review-plans` skips it.
 */
export async function reviewYamlPlan(
  file: string,
  opts: RunOptions,
  workspace: string,
): Promise<void> {
  try {
    const report = await reviewPlans(file, {
      workspace,
      ...(opts.executionCatalog !== undefined ? { executionCatalog: opts.executionCatalog } : {}),
    });
    if (opts.json)
      process.stderr.write(
        `${JSON.stringify({ type: 'plan-review.finished', advisory: true, ...report })}\n`,
      );
    else process.stderr.write(renderPlanReview(report));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      opts.json
        ? `${JSON.stringify({ type: 'plan-review.skipped', advisory: true, reason: why })}\n`
        : `warning: the plan review did not run (${why}); the run goes on (--no-review-plans skips it)\n`,
    );
  }
}
