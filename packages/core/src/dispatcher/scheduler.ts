import { type AdmissionDecision, admit } from '../admission/admit.js';
import { claimKeys } from '../admission/task-view.js';
import type { RunCounts } from '../events/event-schema.js';
import { takesAgentSlot } from '../lifecycle/lifecycle-table.js';
import type { DispatchContext, TaskRuntime } from './context.js';
import { liveAdmissionState } from './live-admission.js';
import { runStep } from './run-step.js';
import { waitLeftMs } from './task-wait.js';

/** True when the task may run a stage in this run (in scope, not finished, not blocked). */
export function isRunnable(ctx: DispatchContext, rt: TaskRuntime): boolean {
  const scope = ctx.options.taskGroup;
  return (
    rt.state.phase !== 'done' &&
    !rt.state.blocked &&
    rt.halted === undefined &&
    (!scope || rt.group === scope)
  );
}

/** Takes the task's write-set claim (all or none); false while another task holds a path. */
async function claimFor(ctx: DispatchContext, rt: TaskRuntime): Promise<boolean> {
  const paths = claimKeys(rt.task.writeSet);
  if (paths.every((p) => ctx.claimIndex.get(p) === rt.id)) return true;
  const result = await ctx.claims.tryClaim(rt.id, paths);
  if (!result.ok) return false;
  for (const p of result.paths) ctx.claimIndex.set(p, rt.id);
  return true;
}

/**
 * The scheduling loop. Event-driven: it admits what B's admission rules allow (dependency
 * order, claims, `maxParallel` across the workspace), starts one stage per admitted task,
 * then sleeps until a stage ends, a backoff/cooldown expires or the run is interrupted —
 * never on a fixed timer. It returns when nothing runs and nothing more can start.
 */
export async function schedule(
  ctx: DispatchContext,
  recovering: Map<string, Promise<void>>,
  onCounts: (counts: RunCounts) => void,
): Promise<void> {
  const inflight = new Map<string, Promise<void>>();
  // Tasks whose running stage holds a `maxParallel` agent slot (gates and archives do not).
  const holdingSlot = new Set<string>();
  // `dirty` catches a wake-up that happens while the loop is not waiting yet.
  let dirty = false;
  let resolver: (() => void) | undefined;
  const wake = () => {
    dirty = true;
    resolver?.();
  };
  const track = (id: string, promise: Promise<void>, slot: boolean) => {
    if (slot) holdingSlot.add(id);
    inflight.set(
      id,
      promise.finally(() => {
        inflight.delete(id);
        holdingSlot.delete(id);
        wake();
      }),
    );
  };
  for (const [id, promise] of recovering) track(id, promise, true);
  // True while the apply queue rule holds tasks back (announced once per episode).
  let applyQueueHeld = false;
  const onAbort = () => wake();
  ctx.signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      // The soonest end of a wait, on the monotonic clock (see task-wait.ts).
      let nextTimer = Number.POSITIVE_INFINITY;
      let decisions: AdmissionDecision[] = [];
      if (!ctx.signal.aborted) {
        const cooling = new Set<string>();
        for (const rt of ctx.tasks.values()) {
          if (!isRunnable(ctx, rt)) continue;
          const left = waitLeftMs(ctx, rt);
          if (left > 0) {
            cooling.add(rt.id);
            nextTimer = Math.min(nextTimer, ctx.monotonicMs() + left);
          }
        }
        const result = admit(
          liveAdmissionState(ctx, new Set([...inflight.keys(), ...cooling]), holdingSlot.size),
        );
        decisions = result.decisions;
        announceWaits(ctx, decisions);
        applyQueueHeld = announceApplyQueue(ctx, decisions, applyQueueHeld);
        for (const id of result.admitted) {
          const rt = ctx.tasks.get(id)!;
          if (!(await claimFor(ctx, rt))) continue;
          if (!rt.announced) {
            rt.announced = true;
            ctx.bus.emit({ type: 'task.admitted', task: id, planLoop: rt.state.planLoop });
          }
          track(id, runStep(ctx, rt), takesAgentSlot(rt.state.phase));
        }
      }
      onCounts(countsOf(ctx, decisions, inflight.size));
      if (inflight.size === 0 && (ctx.signal.aborted || nextTimer === Number.POSITIVE_INFINITY))
        return;
      if (dirty) {
        dirty = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const delay = nextTimer - ctx.monotonicMs();
        const timer = Number.isFinite(delay) ? setTimeout(wake, Math.max(0, delay)) : undefined;
        resolver = () => {
          if (timer) clearTimeout(timer);
          resolve();
        };
      });
      resolver = undefined;
      dirty = false;
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** Emits `task.waiting` when a task starts waiting on dependencies or on a held claim. */
function announceWaits(ctx: DispatchContext, decisions: readonly AdmissionDecision[]): void {
  for (const d of decisions) {
    const rt = ctx.tasks.get(d.id);
    if (!rt) continue;
    let wait: { reason: 'dependencies' | 'claim'; detail: string } | undefined;
    if (d.status === 'waiting-claim') {
      const held = d.conflicts ?? [];
      wait = {
        reason: 'claim',
        detail: held.map((c) => `${c.path} held by ${c.holder}`).join(', '),
      };
    } else if (d.status === 'waiting-dependencies') {
      wait = { reason: 'dependencies', detail: `waits on ${(d.waitingOn ?? []).join(', ')}` };
    }
    const key = wait ? `${wait.reason}:${wait.detail}` : undefined;
    if (key === rt.waitingOn) continue;
    rt.waitingOn = key;
    if (wait && isRunnable(ctx, rt)) ctx.bus.emit({ type: 'task.waiting', task: rt.id, ...wait });
  }
}

/** Emits `admission.held` when the apply queue starts holding tasks back; returns whether it does. */
function announceApplyQueue(
  ctx: DispatchContext,
  decisions: readonly AdmissionDecision[],
  before: boolean,
): boolean {
  const held = decisions.filter((d) => d.status === 'waiting-apply').length;
  if (held > 0 && !before) {
    const waiting = [...ctx.tasks.values()].filter((rt) => rt.state.phase === 'apply').length;
    ctx.bus.emit({
      type: 'admission.held',
      rule: 'apply-queue',
      held,
      detail: `${waiting} approved task(s) wait for the apply (limit ${ctx.options.maxApplyQueue ?? ctx.options.maxParallel}): ${held} task(s) not started yet wait before getting a worktree`,
    });
  }
  return held > 0;
}

/** Counts for the live status line, from the last admission pass. */
function countsOf(
  ctx: DispatchContext,
  decisions: readonly AdmissionDecision[],
  running: number,
): RunCounts {
  const counts: RunCounts = { running, ready: 0, waiting: 0, blocked: 0, done: 0 };
  for (const rt of ctx.tasks.values()) if (rt.state.phase === 'done') counts.done += 1;
  for (const d of decisions) {
    if (d.status === 'waiting-slot') counts.ready += 1;
    else if (
      d.status === 'waiting-dependencies' ||
      d.status === 'waiting-claim' ||
      d.status === 'waiting-apply'
    )
      counts.waiting += 1;
    else if (d.status === 'blocked' || d.status === 'dependency-blocked' || d.status === 'invalid')
      counts.blocked += 1;
    else if (d.status === 'active' && !ctx.tasks.get(d.id)?.busy) counts.waiting += 1;
  }
  return counts;
}
