import type { BlockedInfo, TaskState } from '@switchyard/core';
import { buildEscalation } from '../../escalation/build-bundle.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** Writes escalation files for the tasks of a run that block. */
export interface EscalationWatch {
  /** Escalates every blocked task that has no bundle for its current block (a crash
   * between the block and its bundle, or a block older than escalations). */
  sweep(): Promise<void>;
  /** Waits for every pending write (before the run's exit code is decided). */
  flush(): Promise<void>;
  /** Stops listening. */
  stop(): void;
}

/**
 * Every block escalates: the task's failure bundle and interview request are written
 * (durably) and `task.escalated` is emitted. A write failure is a control-plane failure of
 * the run (exit 1): the block itself is already in the task's state.
 */
export function watchEscalations(ctx: DispatchContext): EscalationWatch {
  const pending = new Set<Promise<void>>();
  const escalate = (rt: TaskRuntime) => {
    const state = rt.state;
    if (!state.blocked) return;
    const write = writeFor(ctx, rt, state as TaskState & { blocked: BlockedInfo }).catch(
      (error: unknown) => {
        const message = `${rt.id}: escalation files could not be written: ${error instanceof Error ? error.message : String(error)}`;
        ctx.controlFailures.push(message);
        ctx.bus.emit({ type: 'control.failure', code: 'SY_ESCALATION', message });
      },
    );
    pending.add(write);
    void write.finally(() => pending.delete(write));
  };
  const off = ctx.bus.on((event) => {
    if (event.type !== 'task.blocked') return;
    const rt = ctx.tasks.get(event.task);
    if (rt) escalate(rt);
  });
  return {
    async sweep() {
      for (const rt of ctx.tasks.values()) {
        const blocked = rt.state.blocked;
        if (!blocked || rt.archivedByHand) continue;
        // damaged by hand: written again
        const stored = await ctx.store.escalations.get(rt.id).catch(() => undefined);
        if (stored?.bundle.blockedAt !== blocked.at) escalate(rt);
      }
    },
    async flush() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    stop: off,
  };
}

async function writeFor(
  ctx: DispatchContext,
  rt: TaskRuntime,
  state: TaskState & { blocked: BlockedInfo },
): Promise<void> {
  const location = ctx.store.escalations.locate(rt.id);
  // A damaged record is left out of the bundle (clean reports it), never a reason to fail.
  const [record, journal] = await Promise.all([
    ctx.store.isolation.getRecord(rt.id).catch(() => undefined),
    ctx.store.isolation.getJournal(rt.id).catch(() => undefined),
  ]);
  const { bundle, interview } = buildEscalation({
    workspace: ctx.workspace,
    isolation: { record, journal },
    task: rt.task,
    state,
    downstream: [...dependentsOf(ctx, rt.id)],
    bundlePath: location.bundle,
    now: ctx.now(),
    secrets: ctx.secrets,
  });
  const fence = await ctx.leases.fenceFor(rt.id);
  await ctx.store.escalations.put(bundle, interview, { fence });
  ctx.bus.emit({
    type: 'task.escalated',
    task: rt.id,
    code: bundle.failure.code,
    question: bundle.question,
    bundle: location.bundle,
    blockedDownstream: bundle.blockedDownstream,
  });
}

/** Active tasks that wait on `id`, directly or transitively. */
function dependentsOf(ctx: DispatchContext, id: string): Set<string> {
  const out = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    for (const rt of ctx.tasks.values()) {
      if (out.has(rt.id) || rt.id === id) continue;
      if (rt.task.dependsOn.some((d) => d.id === current)) {
        out.add(rt.id);
        stack.push(rt.id);
      }
    }
  }
  return out;
}
