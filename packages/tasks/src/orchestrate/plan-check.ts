import type { Problem } from '@switchyard/core';
import { parsePlan } from '../task/parse-plan.js';
import { WriteSetResolver } from '../task/write-set-path.js';
import { type MaterializeOptions, renderTaskPlan } from './plan-materialize.js';
import type { ValidatedPlan } from './plan-validate.js';

/**
 * Checks every task's PLAN.md as it would be written against the task contract of the engine
 * (write-set paths against the workspace, the definition of done as read back), before
 * anything is written. A problem points at the YAML task it comes from.
 */
export function checkRenderedPlans(
  plan: ValidatedPlan,
  workspace: string,
  options: MaterializeOptions = {},
): Problem[] {
  const resolver = new WriteSetResolver(workspace);
  const problems: Problem[] = [];
  for (const task of plan.tasks) {
    const parsed = parsePlan(renderTaskPlan(task, plan, options), {
      file: `agent-task/${plan.planId}/${task.id}/PLAN.md`,
      resolver,
    });
    for (const p of parsed.problems) {
      if (p.severity === 'warning') continue;
      problems.push({
        code: 'SY_YAML_PLAN_INVALID',
        message: `task "${task.id}": ${p.message}`,
        file: plan.file,
        line: task.position.line,
        column: task.position.column,
        ...(p.hint ? { hint: p.hint } : {}),
        severity: 'error',
      });
    }
  }
  return problems;
}
