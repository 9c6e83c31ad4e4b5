import type { Catalog } from '@switchyard/catalog';
import { DEFAULT_ROUTING, type RoutingConfig, routeTask } from '@switchyard/catalog';
import type { DoneAssertion, RouteId } from '@switchyard/core';
import { splitArgv } from '../task/argv.js';
import { parseAssertion } from '../task/definition-of-done.js';
import { resolveBackend } from './plan-routing.js';
import type { OrchestratePlanTask, PlanRunner } from './plan-schema.js';
import type { SourcePosition } from './yaml-positions.js';

// One task of a YAML plan: its checks against the plan (dependencies, runner, definition of
// done, source contract, write set, backend) and what the materializer needs of it.

/** The route of a plan task that names none (and whose plan sets no `execution.route`). */
export const DEFAULT_PLAN_ROUTE: RouteId = 'cloud-G05';

/** A plan task after validation: everything the materializer and the dry run need. */
export interface ResolvedPlanTask {
  id: string;
  title: string;
  runner: PlanRunner;
  /** The route the task runs on (explicit, or what the config's routing gives it). */
  route: RouteId;
  /** True when the plan names the route (`route` or `execution.route`): PLAN.md pins it. */
  routeExplicit: boolean;
  /** Why `route`, for the dry run. */
  routeWhy: string;
  /** Passed to PLAN.md front matter: the config's `routing` maps them to a route / review. */
  complexity?: OrchestratePlanTask['complexity'];
  risk?: OrchestratePlanTask['risk'];
  lane?: string;
  /** `depends_on` as written. */
  dependsOn: string[];
  /** Written dependencies plus the tasks of the nearest earlier non-empty lane, sorted. */
  effectiveDependsOn: string[];
  /** `backend` as written. */
  backend?: string;
  /** The catalog target `backend` resolved to (only when a catalog was given). */
  target?: string;
  /** Why `target` was chosen, for the dry run. */
  targetWhy?: string;
  files?: string[];
  /** An agent task without `files` under worktree isolation: PLAN.md `write_set: any`. */
  anyWriteSet: boolean;
  implementation: string[];
  done?: {
    argv: string[];
    assertion: DoneAssertion;
    /** The assertion as written when it is prose (the gate then checks exit code 0). */
    note?: string;
  };
  /** runner "local": argv (with `shell`, one shell script). */
  command?: string[];
  shell: boolean;
  /** "source" only with apply_to_source + commit_on_success + rollback_on_failure all true. */
  apply: 'source' | 'patch';
  /** Where the task starts in the YAML source. */
  position: SourcePosition;
}

/** What resolving a plan's tasks takes besides the plan: catalog, instant, routing, isolation. */
export interface PlanTaskOptions {
  /** The catalog: when given, every `backend` must name one of its targets or agents. */
  catalog?: Catalog;
  /** Instant for time-windowed routes (default now). */
  now?: Date;
  /** The project config's `routing` (default: the built-in one): routes by complexity/risk. */
  routing?: RoutingConfig;
  /**
   * The isolation the run will use (default "worktree"): under "none" an agent task must list
   * its `files`; under "worktree" a task without them may change any file of its worktree.
   */
  isolation?: 'worktree' | 'none';
}

/** A path of the plan's YAML to its position. */
export type Located = (path: readonly PropertyKey[]) => SourcePosition;

/** Reports a problem of the plan at a position of its YAML. */
export type Report = (
  position: SourcePosition,
  message: string,
  hint?: string,
  severity?: 'error' | 'warning',
) => void;

/** What one task is checked against: the plan's ids and lanes, where to report, the options. */
export interface TaskContext {
  at: Located;
  report: Report;
  options: PlanTaskOptions;
  taskIndex: Map<string, number>;
  laneIndex: Map<string, number>;
  /** The lane index of every task that has a declared lane. */
  taskLane: Map<string, number>;
  laneDeps: string[];
  /** `execution.route`, when the plan sets one. */
  defaultRoute: RouteId | undefined;
}

/**
 * A task's route: its own `route` > `execution.route` > the config's routing for its
 * complexity/risk (as the dispatcher decides for PLAN.md) > {@link DEFAULT_PLAN_ROUTE}.
 */
function routeOf(
  task: OrchestratePlanTask,
  defaultRoute: RouteId | undefined,
  routing: RoutingConfig,
): { route: RouteId; explicit: boolean; why: string } {
  const explicit = (task.route as RouteId | undefined) ?? defaultRoute;
  const routed = routeTask(
    { ...(explicit ? { route: explicit } : {}), complexity: task.complexity, risk: task.risk },
    routing,
  );
  if (explicit) return { route: explicit, explicit: true, why: routed.why };
  if (routed.route) return { route: routed.route as RouteId, explicit: false, why: routed.why };
  return {
    route: DEFAULT_PLAN_ROUTE,
    explicit: true,
    why: `no route, complexity or risk: the default ${DEFAULT_PLAN_ROUTE}`,
  };
}

type Here = (...path: PropertyKey[]) => SourcePosition;

/** Checks one task against the plan and builds what the materializer needs of it. */
export function resolveTask(
  task: OrchestratePlanTask,
  i: number,
  c: TaskContext,
): ResolvedPlanTask {
  const { report } = c;
  const here: Here = (...path) => c.at(['tasks', i, ...path]);
  checkDependencies(task, here, c);
  const route = routeOf(task, c.defaultRoute, c.options.routing ?? DEFAULT_ROUTING);
  const resolved: ResolvedPlanTask = {
    id: task.id,
    title: task.title,
    runner: task.runner,
    route: route.route,
    routeExplicit: route.explicit,
    routeWhy: route.why,
    dependsOn: [...task.depends_on],
    effectiveDependsOn: [...new Set([...task.depends_on, ...c.laneDeps])].sort(),
    implementation: task.implementation ?? [],
    shell: task.shell === true,
    anyWriteSet: false,
    apply: 'patch',
    position: here(),
  };
  if (task.lane !== undefined) resolved.lane = task.lane;
  if (task.complexity !== undefined) resolved.complexity = task.complexity;
  if (task.risk !== undefined) resolved.risk = task.risk;
  if (task.files) resolved.files = [...task.files];
  checkRunner(task, resolved, here, report);
  checkDone(task, resolved, here, report);
  checkSourceContract(task, resolved, here, report);
  checkWriteSet(task, resolved, here, c);
  if (task.backend !== undefined) resolveTaskBackend(task, task.backend, resolved, here, c);
  return resolved;
}

/** Each dependency is another task of the plan, and not one of a later lane. */
function checkDependencies(task: OrchestratePlanTask, here: Here, c: TaskContext): void {
  task.depends_on.forEach((dep, d) => {
    if (dep === task.id)
      c.report(here('depends_on', d), `task "${task.id}" depends on itself`, 'remove the entry');
    else if (!c.taskIndex.has(dep))
      c.report(
        here('depends_on', d),
        `task "${task.id}" depends on "${dep}", which is not a task of this plan`,
        `task ids: ${[...c.taskIndex.keys()].join(', ')}`,
      );
    else {
      const own = task.lane === undefined ? undefined : c.laneIndex.get(task.lane);
      const other = c.taskLane.get(dep);
      if (own !== undefined && other !== undefined && other > own)
        c.report(
          here('depends_on', d),
          `task "${task.id}" (lane "${task.lane}") depends on "${dep}" of a later lane: a cycle, since later lanes wait for earlier ones`,
          'move one of the two tasks to another lane or drop the dependency',
        );
    }
  });
}

/** The task lands a commit only with the whole source contract; part of it ends with a patch. */
function checkSourceContract(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  report: Report,
): void {
  const contract = [task.apply_to_source, task.commit_on_success, task.rollback_on_failure];
  if (contract.every((v) => v === true)) resolved.apply = 'source';
  else if (task.runner === 'code-runner' && contract.some((v) => v === true))
    report(
      here('apply_to_source'),
      `task "${task.id}" sets only part of the source contract: it ends with a patch, the source untouched`,
      'set apply_to_source, commit_on_success and rollback_on_failure all to true to land a commit',
      'warning',
    );
}

/** A task without `files`: never for a local command; for an agent, only under worktree isolation. */
function checkWriteSet(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  c: TaskContext,
): void {
  if (task.runner === 'local' && !task.files)
    c.report(
      here(),
      `local task "${task.id}" has no \`files\` (the files its command writes)`,
      'a local command runs in the source workspace, never in a worktree, so it always needs its write set (its claim): `files: [package-lock.json]`',
    );
  if (task.runner === 'code-runner' && !task.files) {
    if ((c.options.isolation ?? 'worktree') === 'worktree') resolved.anyWriteSet = true;
    else
      c.report(
        here(),
        `task "${task.id}" has no \`files\` (its write set), which only worktree isolation allows; this run has isolation "none"`,
        'add `files: [src/a.ts]` (the workspace-relative files the task may change), or run in a git repository with isolation "worktree"',
      );
  }
}

/** `backend` as written, and for an agent task (with a catalog) the target it resolves to. */
function resolveTaskBackend(
  task: OrchestratePlanTask,
  backend: string,
  resolved: ResolvedPlanTask,
  here: Here,
  c: TaskContext,
): void {
  resolved.backend = backend;
  if (!c.options.catalog || task.runner !== 'code-runner') return;
  const found = resolveBackend(
    c.options.catalog,
    backend,
    resolved.route,
    c.options.now ?? new Date(),
  );
  if ('error' in found) c.report(here('backend'), found.error, found.hint);
  else {
    resolved.target = found.target;
    resolved.targetWhy = found.why;
  }
}

/** Local tasks need a command and run no agent; agent tasks take no command. */
function checkRunner(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  report: Report,
): void {
  if (task.runner === 'local') {
    if (!task.command)
      report(
        here('runner'),
        `local task "${task.id}" has no \`command\``,
        'add the command as an argv list: `command: [node, scripts/setup.mjs]`',
      );
    else resolved.command = [...task.command];
    if (task.shell && task.command && task.command.length !== 1)
      report(
        here('command'),
        `task "${task.id}" has \`shell: true\`: \`command\` must be one shell script string`,
        'write `command: ["npm ci && npm test"]` with `shell: true`, or drop `shell` and give argv',
      );
    if (task.backend !== undefined)
      report(
        here('backend'),
        `local task "${task.id}" runs no agent: \`backend\` does not apply`,
        'remove `backend`, or use `runner: code-runner`',
      );
    return;
  }
  for (const key of ['command', 'shell'] as const)
    if (task[key] !== undefined)
      report(
        here(key),
        `\`${key}\` is only for \`runner: local\` (task "${task.id}" runs an agent)`,
        'remove it, or set `runner: local` for a deterministic command',
      );
}

/** The definition of done: a command without shell operators and a checked assertion form. */
function checkDone(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  report: Report,
): void {
  const done = task.definition_of_done;
  if (!done) return;
  let argv: string[] | undefined;
  if (Array.isArray(done.command)) argv = [...done.command];
  else {
    const split = splitArgv(done.command);
    if ('error' in split || split.argv.length === 0)
      report(
        here('definition_of_done', 'command'),
        `definition_of_done.command: ${'error' in split ? split.error : 'empty'}`,
        'the command runs without a shell; put pipelines in a script and run the script',
      );
    else argv = split.argv;
  }
  const parsed = parseAssertion(done.assertion);
  let assertion: DoneAssertion = { kind: 'exit-code', code: 0 };
  let note: string | undefined;
  if ('error' in parsed) {
    if (/^\s*`?\s*(exit|stdout)\b/i.test(done.assertion))
      report(
        here('definition_of_done', 'assertion'),
        `definition_of_done.assertion: ${parsed.error}`,
      );
    else {
      note = done.assertion;
      report(
        here('definition_of_done', 'assertion'),
        `assertion "${done.assertion}" is prose: the gate checks exit code 0 and keeps the text as a note`,
        'write `exit code 0`, `stdout contains "text"` or `stdout matches /re/` to check more',
        'warning',
      );
    }
  } else assertion = parsed;
  if (argv) resolved.done = { argv, assertion, ...(note !== undefined ? { note } : {}) };
}
