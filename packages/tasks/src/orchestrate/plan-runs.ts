import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_TASK_DIR, ARCHIVE_DIR, PLAN_FILE } from '@switchyard/core';

/**
 * Runs of one YAML plan: the first runs as task group `<plan-id>`, a run started anew after it
 * finished (`run <plan> --again`) as `<plan-id>.run2`, then `.run3`… Earlier runs keep their
 * folders, archive, work logs and commits untouched: a new run never rewrites history.
 */
export function runGroupName(planId: string, run: number): string {
  return run <= 1 ? planId : `${planId}.run${run}`;
}

const groupsIn = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
};

/** The run numbers of `planId` that have a folder (active or archived), ascending. */
export function planRuns(workspace: string, planId: string): number[] {
  const root = join(workspace, AGENT_TASK_DIR);
  const runs = new Set<number>();
  for (const name of [...groupsIn(root), ...groupsIn(join(root, ARCHIVE_DIR))]) {
    if (name === planId) runs.add(1);
    else if (name.startsWith(`${planId}.run`)) {
      const n = name.slice(planId.length + 4);
      if (/^[1-9]\d*$/.test(n) && Number(n) >= 2) runs.add(Number(n));
    }
  }
  return [...runs].sort((a, b) => a - b);
}

/**
 * True when a run's group has archived tasks and no task folder left to work on: every task
 * it wrote is done (a plan edited since does not change that).
 */
export function planRunFinished(workspace: string, group: string): boolean {
  const root = join(workspace, AGENT_TASK_DIR);
  const active = groupsIn(join(root, group)).some((task) =>
    existsSync(join(root, group, task, PLAN_FILE)),
  );
  const archived = groupsIn(join(root, ARCHIVE_DIR, group)).length > 0;
  return archived && !active;
}

/** The group a run of a plan uses, and whether it starts anew. */
export interface PlanRunChoice {
  group: string;
  run: number;
  /** `--again` found the latest run finished: this run starts in a fresh group. */
  anew: boolean;
  /** `--again` found the latest run unfinished: it is continued instead. */
  continued: boolean;
}

/**
 * Which group a run of the plan uses: its latest run (the first when it never ran); with
 * `again`, a new run once the latest one finished, else the latest continued.
 */
export function choosePlanRun(workspace: string, planId: string, again: boolean): PlanRunChoice {
  const runs = planRuns(workspace, planId);
  const latest = runs.at(-1) ?? 1;
  const group = runGroupName(planId, latest);
  if (!again || runs.length === 0) return { group, run: latest, anew: false, continued: false };
  if (planRunFinished(workspace, group))
    return {
      group: runGroupName(planId, latest + 1),
      run: latest + 1,
      anew: true,
      continued: false,
    };
  return { group, run: latest, anew: false, continued: true };
}
