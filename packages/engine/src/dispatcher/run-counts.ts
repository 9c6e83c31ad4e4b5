import type { RunCounts } from '@switchyard/core';
import type { AdmissionDecision } from '../admission/admit.js';
import type { DispatchContext } from './types.js';

/**
 * Counts for the live status line, from the last admission pass: every figure is about the
 * run's own tasks (its `--task-group`, else the workspace's unfinished tasks), the same set
 * the run's summary and exit code speak of, so running + ready + waiting + blocked + done add
 * up to the tasks the run started with. A blocked task of another group is not this run's.
 */
export function countsOf(
  ctx: Pick<DispatchContext, 'tasks' | 'options'>,
  decisions: readonly AdmissionDecision[],
  running: number,
): RunCounts {
  const scope = ctx.options.taskGroup;
  const inScope = (id: string) => !scope || ctx.tasks.get(id)?.group === scope;
  const counts: RunCounts = { running, ready: 0, waiting: 0, blocked: 0, done: 0 };
  for (const rt of ctx.tasks.values())
    if (rt.state.phase === 'done' && inScope(rt.id)) counts.done += 1;
  for (const d of decisions) {
    if (!inScope(d.id)) continue;
    if (d.status === 'waiting-slot') counts.ready += 1;
    else if (
      d.status === 'waiting-dependencies' ||
      d.status === 'waiting-claim' ||
      d.status === 'waiting-apply' ||
      d.status === 'waiting-disk'
    )
      counts.waiting += 1;
    else if (d.status === 'blocked' || d.status === 'dependency-blocked' || d.status === 'invalid')
      counts.blocked += 1;
    else if (d.status === 'active' && !ctx.tasks.get(d.id)?.busy) counts.waiting += 1;
  }
  return counts;
}
