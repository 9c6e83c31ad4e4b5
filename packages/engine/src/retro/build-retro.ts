import type { PriceTable } from '@switchyard/config';
import type { RunEvent } from '@switchyard/core';
import { formatUsd, roundUsd } from '@switchyard/runner-kit';
import type { Retro, RetroScope, RetroSuggestion, RetroTarget, RetroTask } from './retro-types.js';
import { RetroTally, type TargetTally, type TaskTally } from './tally-events.js';

/** The runs a scope selects, in order. */
export function runsInScope(events: readonly RunEvent[], scope: RetroScope): string[] {
  const started = events.filter((e) => e.type === 'run.started');
  if (scope.runId) return started.some((e) => e.runId === scope.runId) ? [scope.runId] : [];
  if (scope.since) {
    const since = Date.parse(scope.since);
    return started.filter((e) => Date.parse(e.at) >= since).map((e) => e.runId);
  }
  const last = started.at(-1);
  return last ? [last.runId] : [];
}

/**
 * Builds the retrospective of the selected runs from their events: per task (attempts,
 * failovers and their classes, plan loops, findings by severity, gate failures, duration,
 * tokens, cost), per target (success rate, failure classes, mean duration, cost per archived
 * task) and suggestions, each citing its figures.
 */
export function buildRetro(
  events: readonly RunEvent[],
  scope: RetroScope = {},
  prices: PriceTable = {},
): Retro {
  const runs = runsInScope(events, scope);
  const inRuns = new Set(runs);
  const scoped = events.filter((e) => inRuns.has(e.runId));
  const tally = new RetroTally(prices);
  for (const e of scoped) tally.add(e);
  const taskList = taskFigures(tally.tasks.values());
  const archived = new Set(taskList.filter((t) => t.outcome === 'archived').map((t) => t.task));
  const targetList = targetFigures(tally.targets.values(), archived);
  const times = scoped.map((e) => e.at).sort();
  return {
    runs,
    ...(times.length > 0 ? { from: times[0], to: times.at(-1) } : {}),
    tasks: taskList,
    targets: targetList,
    suggestions: suggest(taskList, targetList),
    totals: {
      attempts: taskList.reduce((n, t) => n + t.attempts, 0),
      archived: archived.size,
      blocked: taskList.filter((t) => t.outcome === 'blocked').length,
      tokens: taskList.reduce((n, t) => n + t.tokens, 0),
      costUsd: roundUsd(taskList.reduce((n, t) => n + t.costUsd, 0)),
    },
  };
}

/** The tasks that did something (an attempt, a gate, an outcome), by id, with their durations. */
function taskFigures(tallies: Iterable<TaskTally>): RetroTask[] {
  return [...tallies]
    .filter((t) => t.attempts > 0 || t.outcome !== 'open' || t.gateFailures > 0)
    .map(({ first, last, ...t }) => ({
      ...t,
      durationMs: first !== undefined && last !== undefined ? last - first : 0,
    }))
    .sort((a, b) => a.task.localeCompare(b.task));
}

/** The targets by id, with their rates and the cost per archived task they worked on. */
function targetFigures(
  tallies: Iterable<TargetTally>,
  archived: ReadonlySet<string>,
): RetroTarget[] {
  return [...tallies]
    .map(({ durations, tasks: worked, ...g }) => {
      const archivedTasks = [...worked].filter((id) => archived.has(id)).length;
      return {
        ...g,
        successRate: g.attempts > 0 ? g.succeeded / g.attempts : 0,
        meanDurationMs: g.attempts > 0 ? Math.round(durations / g.attempts) : 0,
        archivedTasks,
        ...(archivedTasks > 0
          ? { costPerArchivedTaskUsd: roundUsd(g.costUsd / archivedTasks) }
          : {}),
      };
    })
    .sort((a, b) => a.target.localeCompare(b.target));
}

const pct = (n: number) => `${Math.round(n * 100)} %`;
const classes = (c: Record<string, number>) =>
  Object.entries(c)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ×${v}`)
    .join(', ');

/** Suggestions from the figures; each names the numbers it rests on. */
function suggest(tasks: RetroTask[], targets: RetroTarget[]): RetroSuggestion[] {
  const out: RetroSuggestion[] = [];
  for (const g of targets) {
    const failed = g.attempts - g.succeeded;
    if (failed >= 1 && failed / g.attempts >= 0.5) {
      out.push({
        text: `target ${g.target} failed ${failed} of ${g.attempts} attempts (${classes(g.failureClasses)}): put it later in the routes that list it, or check its provider`,
        figures: `${g.target}: ${failed}/${g.attempts} failed`,
      });
    }
  }
  const reviewed = tasks.filter(
    (t) =>
      t.findings.critical + t.findings.moderate + t.findings.minor > 0 ||
      t.reviewsRequestingChanges > 0 ||
      t.outcome === 'archived',
  );
  const sentBack = tasks.filter((t) => t.reviewsRequestingChanges > 0);
  if (reviewed.length > 0 && sentBack.length / reviewed.length >= 0.5) {
    out.push({
      text: `reviews requested changes for ${pct(sentBack.length / reviewed.length)} of reviewed tasks (${sentBack.map((t) => t.task).join(', ')}): the plans may be under-specified`,
      figures: `${sentBack.length} of ${reviewed.length} reviewed tasks`,
    });
  }
  for (const t of tasks) {
    if (t.gateFailures >= 2) {
      out.push({
        text: `task ${t.task} failed its definition of done ${t.gateFailures} times: state the expected result more precisely in its plan`,
        figures: `${t.task}: ${t.gateFailures} gate failures`,
      });
    }
  }
  const total = tasks.reduce((n, t) => n + t.costUsd, 0);
  const top = [...tasks].sort((a, b) => b.costUsd - a.costUsd)[0];
  if (top && total > 0 && tasks.length > 1 && top.costUsd / total >= 0.5) {
    out.push({
      text: `task ${top.task} took ${pct(top.costUsd / total)} of the cost: split it, or give it a cheaper target`,
      figures: `${formatUsd(top.costUsd)} of ${formatUsd(total)}`,
    });
  }
  return out;
}
