import { basename, relative, resolve, sep } from 'node:path';
import type { Problem } from '@switchyard/core';
import type { parsePlanFile } from '@switchyard/tasks';
import type { Command } from 'commander';

type ParsedPlan = ReturnType<typeof parsePlanFile>;

/** Options of `switchyard validate-plan`. */
export interface ValidatePlanOptions {
  workspace?: string;
  json?: boolean;
}

/** `switchyard validate-plan <PLAN.md>`: the task contract check, no catalog needed. */
export function registerValidatePlan(program: Command): void {
  program
    .command('validate-plan')
    .description(
      'Check one PLAN.md against the task contract (exit 0 valid, 2 with every problem).',
    )
    .argument('<plan>', 'path to a PLAN.md or follow-up PLAN-<n>.md')
    .option(
      '--workspace <dir>',
      'workspace root (default: the folder above agent-task/, else the current folder)',
    )
    .option('--json', 'print one JSON document to stdout')
    .addHelpText(
      'after',
      `
Checks the front matter (route, depends_on, target, max_plan_loops), exactly one non-empty
"## Modified Files Summary" whose entries are workspace files (no globs, folders, absolute
paths, "..", symlinks leaving the workspace, .git/ or agent-task/), the
"## Implementation Checklist" and an optional "## Definition of Done". Needs no execution
catalog. Warnings (legacy headings, duplicate entries) do not fail the check.

Examples:
  $ switchyard validate-plan agent-task/api/add-flag/PLAN.md
  $ switchyard validate-plan agent-task/api/add-flag/PLAN-2.md --json
  $ switchyard validate-plan plans/draft.md --workspace .`,
    )
    .action(async (plan: string, opts: ValidatePlanOptions) => validatePlanCommand(plan, opts));
}

/** The workspace of a plan: the folder holding its `agent-task/`, else the current folder. */
export function inferWorkspace(planPath: string): string {
  const parts = resolve(planPath).split(sep);
  const at = parts.lastIndexOf('agent-task');
  return at > 0 ? parts.slice(0, at).join(sep) || sep : process.cwd();
}

/** Runs the check and sets the exit code: 0 valid (warnings allowed), 2 invalid. */
export async function validatePlanCommand(
  planPath: string,
  opts: ValidatePlanOptions,
): Promise<void> {
  const core = await import('@switchyard/core');
  const tasksLib = await import('@switchyard/tasks');
  const { printJson, printProblems } = await import('../output.js');
  const file = resolve(planPath);
  const workspace = resolve(opts.workspace ?? inferWorkspace(file));
  const shown = relative(process.cwd(), file) || file;
  // A YAML plan read as a PLAN.md only gets "missing section" errors that say nothing of it.
  if (/\.ya?ml$/i.test(file))
    throw new core.SwitchyardError(
      'SY_USAGE',
      `${shown} is a YAML plan; validate-plan checks one PLAN.md`,
      { hint: `\`switchyard run ${shown} --dry-run\` checks the whole plan and starts nothing` },
    );
  const loop = core.planLoopOf(basename(file));
  const plan = tasksLib.parsePlanFile(file, { file: shown, workspace, followUp: (loop ?? 1) > 1 });
  const problems = [...plan.problems];
  // Where the file lies counts as a run sees it: a plan outside a task folder never runs.
  const stray = tasksLib.strayPlanProblem(workspace, file);
  if (stray) problems.push({ ...stray, file: shown });
  problems.push(...(await dependencyProblems(plan.frontMatter.dependsOn, file, workspace, shown)));
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const valid = !tasksLib.hasErrors(problems);
  process.exitCode = valid ? 0 : 2;
  if (opts.json) {
    printJson({
      schema_version: 1,
      valid,
      file: shown,
      workspace,
      plan: {
        route: plan.frontMatter.route ?? null,
        depends_on: plan.frontMatter.dependsOn.map((d) => d.raw),
        target: plan.frontMatter.target ?? null,
        max_plan_loops: plan.frontMatter.maxPlanLoops ?? null,
        write_set: plan.writeSet,
        checklist: plan.checklist,
        definition_of_done: plan.definitionOfDone ?? null,
      },
      problems: problems.map((p) => ({ ...p, severity: p.severity ?? 'error' })),
    });
    return;
  }
  printProblems(problems);
  if (!valid) {
    const n = problems.filter((p) => p.severity !== 'warning').length;
    process.stderr.write(`${shown}: ${n} problem${n === 1 ? '' : 's'}; nothing was run.\n`);
    return;
  }
  process.stdout.write(`${summaryLines(plan, shown, loop).join('\n')}\n`);
}

/**
 * depends_on names tasks: each must resolve to a task folder (active or archived), and not be
 * the plan's own task. Outside agent-task/<group>/<task>/ a bare name is only a warning.
 */
async function dependencyProblems(
  dependsOn: readonly { raw: string; line?: number }[],
  file: string,
  workspace: string,
  shown: string,
): Promise<Problem[]> {
  const core = await import('@switchyard/core');
  const tasksLib = await import('@switchyard/tasks');
  const { existsSync } = await import('node:fs');
  const problems: Problem[] = [];
  const inTree = relative(core.agentTaskDir(workspace), file).split(sep);
  const group = inTree.length === 3 && !inTree[0]?.startsWith('..') ? inTree[0] : undefined;
  for (const dep of dependsOn) {
    const id = group
      ? tasksLib.resolveDependency(dep.raw, group)
      : dep.raw.includes('/')
        ? dep.raw
        : undefined;
    if (!id) {
      problems.push({
        code: 'SY_PLAN_INVALID',
        message: `depends_on entry "${dep.raw}" is not "task" or "group/task"`,
        file: shown,
        line: dep.line,
        severity: group ? 'error' : 'warning',
        hint: group
          ? 'write `task` (same group) or `group/task`'
          : 'outside agent-task/<group>/<task>/ a bare task name has no group',
      });
      continue;
    }
    if (group && id === `${group}/${inTree[1]}`) {
      problems.push({
        code: 'SY_GRAPH_INVALID',
        message: `depends_on "${dep.raw}": the task depends on itself`,
        file: shown,
        line: dep.line,
        hint: 'remove the entry; a task cannot wait for its own completion',
        severity: 'error',
      });
      continue;
    }
    if (
      !existsSync(core.taskDir(workspace, id)) &&
      !existsSync(core.archivedTaskDir(workspace, id))
    )
      problems.push({
        code: 'SY_GRAPH_INVALID',
        message: `depends_on "${dep.raw}": no task ${id} in ${core.agentTaskDir(workspace)}`,
        file: shown,
        line: dep.line,
        hint: 'create that task or fix the name',
        severity: 'error',
      });
  }
  return problems;
}

/** The human summary of a valid plan. */
function summaryLines(plan: ParsedPlan, shown: string, loop: number | undefined): string[] {
  const fm = plan.frontMatter;
  const dod = plan.definitionOfDone;
  return [
    `✓ ${shown} follows the task contract${loop && loop > 1 ? ` (follow-up plan, loop ${loop})` : ''}`,
    `  route       ${fm.route ?? '(from PLAN.md)'}${fm.target ? `, pinned to target ${fm.target}` : ''}`,
    `  depends on  ${fm.dependsOn.map((d) => d.raw).join(', ') || '(nothing)'}`,
    `  write set   ${plan.writeSet.length} file${plan.writeSet.length === 1 ? '' : 's'}: ${plan.writeSet.map((e) => e.path).join(', ')}`,
    `  checklist   ${plan.checklist.length} item${plan.checklist.length === 1 ? '' : 's'}, ${plan.checklist.filter((c) => c.checked).length} checked`,
    `  done when   ${dod ? `${dod.command} → ${describeAssertion(dod.assertion)}` : '(no Definition of Done)'}`,
  ];
}

function describeAssertion(a: {
  kind: string;
  code?: number;
  text?: string;
  pattern?: string;
}): string {
  if (a.kind === 'exit-code') return `exit code ${a.code}`;
  if (a.kind === 'stdout-contains') return `stdout contains ${JSON.stringify(a.text)}`;
  return `stdout matches /${a.pattern}/`;
}
