import type { BlockedInfo } from '@switchyard/core';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** Blocks a task: records why, with evidence, and emits `task.blocked`. */
export function blockTask(
  ctx: DispatchContext,
  rt: TaskRuntime,
  info: Omit<BlockedInfo, 'at'>,
): void {
  rt.state.blocked = { ...info, at: ctx.now().toISOString() };
  ctx.bus.emit({
    type: 'task.blocked',
    task: rt.id,
    stage: info.stage,
    reason: info.reason,
    evidence: info.evidence,
  });
}
