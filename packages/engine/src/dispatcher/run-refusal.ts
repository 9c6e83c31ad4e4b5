import type { Problem, TaskState } from '@switchyard/core';
import type { WorkspaceModel } from '@switchyard/tasks';

/** Why `switchyard run` stops before anything launches (exit 2); `status` shows the same. */
export interface RunRefusal {
  code: 'SY_PLAN_INVALID';
  message: string;
  hint: string;
  /** Every problem, each once (code, file, line, message, hint). */
  problems: Problem[];
}

/** What the run is asked to do: its `--task-group`, the tasks `retry` names, the admitted ones. */
export interface RunScope {
  group?: string | undefined;
  retryTasks?: readonly string[];
  /** Tasks the dispatcher admitted (see {@link admittedTasks}): they run their record. */
  admitted?: ReadonlySet<string>;
}

/**
 * The invalid input in scope that makes a run refuse before anything launches, or undefined
 * when the run can start. One rule for the run (which throws it) and `status` (which shows it).
 */
export function runRefusal(model: WorkspaceModel, scope: RunScope = {}): RunRefusal | undefined {
  const { group, retryTasks = [], admitted = new Set<string>() } = scope;
  // Problems of the workspace itself (no agent-task/ folder…); task problems are on each task.
  const problems: Problem[] = model.problems.filter(
    (p) => p.severity !== 'warning' && !model.tasks.some((t) => t.problems.includes(p)),
  );
  if (group && !model.groups.includes(group)) {
    problems.push({
      code: 'SY_USAGE',
      message: `no task group "${group}" under agent-task/`,
      hint: `Known groups: ${model.groups.join(', ') || '(none)'}.`,
    });
  }
  const retried = new Set(retryTasks);
  for (const task of model.tasks) {
    if (group && task.group !== group) continue;
    // A task the dispatcher admitted runs its record: files an agent broke are a finding then,
    // not a reason to stop the run (a retry admits the files, so those must be valid).
    if (admitted.has(task.id) && !retried.has(task.id)) continue;
    problems.push(...task.problems.filter((p) => p.severity !== 'warning'));
  }
  problems.push(...unknownRetryTasks(model, retryTasks));
  if (problems.length === 0) return undefined;
  const unique = [
    ...new Map(problems.map((p) => [`${p.file}:${p.line}:${p.message}`, p])).values(),
  ];
  return {
    code: 'SY_PLAN_INVALID',
    message: `${unique.length} problem(s) in the task plans; nothing was launched.`,
    hint: 'Fix every listed problem (`switchyard validate-plan <PLAN.md>` checks one plan), then run again.',
    problems: unique,
  };
}

/** Tasks the dispatcher admitted and has not finished (their stored plan is what they run). */
export function admittedTasks(states: readonly TaskState[]): Set<string> {
  return new Set(
    states
      .filter((state) => state.plan && !state.plan.readmit && state.phase !== 'done')
      .map((state) => state.task),
  );
}

/** `switchyard retry` names only active tasks (a typo must not silently retry nothing). */
function unknownRetryTasks(model: WorkspaceModel, ids: readonly string[]): Problem[] {
  const known = new Set(model.tasks.map((t) => t.id));
  return ids
    .filter((id) => !known.has(id))
    .map((id) => ({
      code: 'SY_USAGE' as const,
      message: `no active task "${id}" to retry`,
      hint: `Name tasks as <group>/<task> under agent-task/ (\`switchyard status\` lists the blocked ones). Known: ${
        model.tasks
          .map((t) => t.id)
          .slice(0, 10)
          .join(', ') || '(none)'
      }.`,
    }));
}
