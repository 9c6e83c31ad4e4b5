import type { DispatchContext } from '../types.js';
import { attemptRowFields } from './work-log-row.js';

/**
 * Feeds the work log from the run's event bus: the FINISH row of every agent attempt is
 * written when its `attempt.finished` event is emitted (after that event's line in
 * `events.jsonl`, before the task's state is persisted). The agent/model column comes from
 * the attempt's `attempt.started` event of this run (a fresh start or a re-attach). Rows the
 * bus carries no event for (START before the spawn, gate and local-stage rows, the FINISH of
 * a spawn that failed or of an attempt judged after a restart) are still written directly.
 * Returns the unsubscribe.
 */
export function feedWorkLogFromBus(ctx: DispatchContext): () => void {
  const agentModels = new Map<string, string>();
  return ctx.bus.on((event) => {
    if (event.type === 'attempt.started') {
      agentModels.set(event.attempt, `${event.agent}/${event.model}`);
      return;
    }
    // An attempt judged after a restart has its FINISH row written by settleGoneAttempt,
    // only when its START row is still open.
    if (event.type !== 'attempt.finished' || event.recovered) return;
    const agentModel = agentModels.get(event.attempt) ?? event.target;
    agentModels.delete(event.attempt);
    const rt = ctx.tasks.get(event.task);
    const record = rt?.state.attempts.find((a) => a.id === event.attempt);
    if (!rt || !record) return;
    ctx.workLog.finish(rt.group, {
      ...attemptRowFields(ctx, rt, record, agentModel),
      kind: 'FINISH',
      time: ctx.now(),
      result: record.interrupted ? 'interrupted' : event.result,
    });
  });
}
