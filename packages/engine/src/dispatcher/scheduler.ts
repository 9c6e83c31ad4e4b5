import { type ClaimResult, type RunCounts, SwitchyardError } from '@switchyard/core';
import { formatBytes } from '@switchyard/utils';
import type { AdmissionDecision, AdmissionResult, AdmissionState } from '../admission/admit.js';
import { admitPasses } from '../admission/admit-passes.js';
import { claimKeys } from '../admission/task-view.js';
import { worktreeBytes } from '../admission/worktree-bytes.js';
import { takesAgentSlot } from '../lifecycle/index.js';
import { liveAdmissionState, waitsForApply } from './live-admission.js';
import { countsOf } from './run-counts.js';
import { runStep } from './run-step.js';
import { releaseBlockedClaims } from './shared/blocked-claims.js';
import { claimWriteOf } from './shared/claim-fence.js';
import { loseTask, ownsTask, sharedWorkLeft, syncSharedBacklog } from './shared/shared-backlog.js';
import { waitLeftMs } from './task-wait.js';
import type { DispatchContext, TaskRuntime } from './types.js';
import { type WaitingWrites, waitingWrites } from './waiting-writes.js';

/** True when the task may run a stage in this run (in scope, not finished, not blocked). */
export function isRunnable(ctx: DispatchContext, rt: TaskRuntime): boolean {
  const scope = ctx.options.taskGroup;
  return (
    rt.state.phase !== 'done' &&
    !rt.state.blocked &&
    rt.halted === undefined &&
    (!scope || rt.group === scope) &&
    ownsTask(ctx, rt.id)
  );
}

/** Takes the task's write-set claim (all or none); false while another task holds a path. */
async function claimFor(ctx: DispatchContext, rt: TaskRuntime): Promise<boolean> {
  const paths = claimKeys(rt.task.writeSet);
  if (paths.every((p) => ctx.claimIndex.get(p) === rt.id)) return true;
  let result: ClaimResult;
  try {
    result = await ctx.claims.tryClaim(rt.id, paths, await claimWriteOf(ctx, rt.id));
  } catch (error) {
    // Shared backlog: the task went to another dispatcher before its claim; it starts nothing.
    if (!ctx.shared || !SwitchyardError.is(error) || error.code !== 'SY_LEASE_LOST') throw error;
    if (ctx.shared.owned.has(rt.id)) loseTask(ctx, rt.id);
    return false;
  }
  if (!result.ok) {
    // Held by a task this run does not see in its claim index: one on another machine.
    const detail = result.conflicts.map((c) => `${c.path} held by ${c.holder}`).join(', ');
    if (rt.claimWait !== detail) {
      rt.claimWait = detail;
      ctx.bus.emit({ type: 'task.waiting', task: rt.id, reason: 'claim', detail });
    }
    return false;
  }
  for (const p of result.paths) ctx.claimIndex.set(p, rt.id);
  delete rt.claimWait;
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
  const stages = runningStages(ctx);
  for (const [id, promise] of recovering) stages.track(id, promise, true);
  if (ctx.shared) ctx.shared.wake = stages.wake;
  // A retry asked by a human (monitor) may start a task at once.
  ctx.options.control?.bindWake(stages.wake);
  const held: HeldAnnouncements = { applyQueue: false, disk: false };
  // Admission keeps the backlog's order between passes (see admit-passes.ts).
  const admit = admitPasses();
  const waiting = waitingWrites(ctx, stages.inflight);
  const onAbort = () => stages.wake();
  ctx.signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      // Nothing is admitted once the run is interrupted: the loop waits for what runs.
      const pass = ctx.signal.aborted
        ? idlePass()
        : await admitAndStart(ctx, stages, held, waiting, admit);
      // The soonest end of a wait, on the monotonic clock (see task-wait.ts).
      let nextTimer = pass.nextTimer;
      onCounts(countsOf(ctx, pass.decisions, stages.inflight.size));
      // A shared backlog with work left on any machine: look again after a while (an expired
      // lease of a machine that died sends no wake-up).
      if (!ctx.signal.aborted && ctx.shared && sharedWorkLeft(ctx))
        nextTimer = Math.min(nextTimer, ctx.monotonicMs() + ctx.shared.pollMs);
      const move = afterPass({
        woken: stages.takeWake(),
        inflight: stages.inflight.size,
        aborted: ctx.signal.aborted,
        nextTimer,
      });
      if (move === 'done') return;
      if (move === 'sleep') await stages.sleep(nextTimer);
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    await waiting.settle();
  }
}

/**
 * What the loop does after a pass: a wake-up that came during it (a stage that ended while
 * the pass awaited its writes) means another pass, even when nothing is in flight any more —
 * the task of that stage has its next stage to start; otherwise the run is done when nothing
 * runs and nothing waits for a timer (or it was interrupted), and sleeps till then.
 */
export function afterPass(pass: {
  woken: boolean;
  inflight: number;
  aborted: boolean;
  nextTimer: number;
}): 'again' | 'done' | 'sleep' {
  if (pass.woken) return 'again';
  if (pass.inflight === 0 && (pass.aborted || pass.nextTimer === Number.POSITIVE_INFINITY))
    return 'done';
  return 'sleep';
}

/** Whether the apply queue / the disk cap hold tasks back (each announced once per episode). */
interface HeldAnnouncements {
  applyQueue: boolean;
  disk: boolean;
}

/** The stages in flight and the wake-up the scheduling loop sleeps on. */
interface RunningStages {
  readonly inflight: Map<string, Promise<void>>;
  /** Tasks whose running stage holds a `maxParallel` agent slot (gates and archives do not). */
  readonly holdingSlot: Set<string>;
  /** Wakes the loop; a wake-up while it is not sleeping is kept for its next turn. */
  wake(): void;
  track(id: string, promise: Promise<void>, slot: boolean): void;
  /** True (and consumed) when a wake-up came while the loop was busy. */
  takeWake(): boolean;
  /** Sleeps until a wake-up or the monotonic time `until` (never, when infinite). */
  sleep(until: number): Promise<void>;
}

function runningStages(ctx: DispatchContext): RunningStages {
  const inflight = new Map<string, Promise<void>>();
  const holdingSlot = new Set<string>();
  // `dirty` catches a wake-up that happens while the loop is not waiting yet.
  let dirty = false;
  let resolver: (() => void) | undefined;
  const wake = () => {
    dirty = true;
    resolver?.();
  };
  return {
    inflight,
    holdingSlot,
    wake,
    track(id, promise, slot) {
      if (slot) holdingSlot.add(id);
      inflight.set(
        id,
        promise.finally(() => {
          inflight.delete(id);
          holdingSlot.delete(id);
          wake();
        }),
      );
    },
    takeWake() {
      if (!dirty) return false;
      dirty = false;
      return true;
    },
    async sleep(until) {
      await new Promise<void>((resolve) => {
        const delay = until - ctx.monotonicMs();
        const timer = Number.isFinite(delay) ? setTimeout(wake, Math.max(0, delay)) : undefined;
        resolver = () => {
          if (timer) clearTimeout(timer);
          resolve();
        };
      });
      resolver = undefined;
      dirty = false;
    },
  };
}

/** What one admission pass decided, and the soonest end of a backoff/cooldown. */
interface AdmissionPass {
  decisions: AdmissionDecision[];
  nextTimer: number;
}

function idlePass(): AdmissionPass {
  return { decisions: [], nextTimer: Number.POSITIVE_INFINITY };
}

/**
 * One admission pass: takes what other machines hand over, releases blocked tasks' claims,
 * admits what the rules allow and starts a stage for each admitted task that gets its claim.
 * Returns the decisions and the soonest end of a backoff/cooldown.
 */
async function admitAndStart(
  ctx: DispatchContext,
  stages: RunningStages,
  held: HeldAnnouncements,
  waiting: WaitingWrites,
  admit: (state: AdmissionState) => AdmissionResult,
): Promise<AdmissionPass> {
  if (ctx.shared) {
    const room = ctx.options.maxParallel > 0 ? ctx.options.maxParallel - ctx.shared.owned.size : 64;
    const attached = await syncSharedBacklog(ctx, new Set(stages.inflight.keys()), room);
    for (const [id, promise] of attached) stages.track(id, promise, true);
  }
  await releaseBlockedClaims(ctx);
  const { cooling, nextTimer } = coolingTasks(ctx);
  const result = admit(
    liveAdmissionState(
      ctx,
      new Set([...stages.inflight.keys(), ...cooling]),
      stages.holdingSlot.size,
    ),
  );
  announceWaits(ctx, result.decisions);
  held.applyQueue = announceApplyQueue(ctx, result.decisions, held.applyQueue);
  held.disk = announceDiskCap(ctx, result.decisions, held.disk);
  // The pass's claims are asked for at once, so the store writes them together (one durable
  // write, not one after another); each task starts as soon as its own claim is durable (a
  // task that holds its claim already, at once: its `task.admitted` then comes before those of
  // the tasks whose claims are being written). The pass ends once every admitted task has
  // started or been refused, so the next one counts their slots.
  const started = await Promise.allSettled(
    result.admitted.map(async (id) => {
      const rt = ctx.tasks.get(id)!;
      if (!(await claimFor(ctx, rt))) return;
      if (!rt.announced) {
        rt.announced = true;
        ctx.bus.emit({ type: 'task.admitted', task: id, planLoop: rt.state.planLoop });
      }
      stages.track(id, runStep(ctx, rt), takesAgentSlot(rt.state.phase));
    }),
  );
  for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
  // A passed check left to the next write is written within a second when the stage after
  // it did not start by then (no slot, a cooldown…): status and the monitor read the phase
  // from the store, and the wait may be long (waiting-writes.ts).
  waiting.arm();
  return { decisions: result.decisions, nextTimer };
}

/** Runnable tasks still in a backoff/cooldown, and the soonest monotonic time one ends. */
function coolingTasks(ctx: DispatchContext): { cooling: Set<string>; nextTimer: number } {
  const cooling = new Set<string>();
  let nextTimer = Number.POSITIVE_INFINITY;
  for (const rt of ctx.tasks.values()) {
    if (!isRunnable(ctx, rt)) continue;
    const left = waitLeftMs(ctx, rt);
    if (left > 0) {
      cooling.add(rt.id);
      nextTimer = Math.min(nextTimer, ctx.monotonicMs() + left);
    }
  }
  return { cooling, nextTimer };
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
  const held = countOf(decisions, 'waiting-apply');
  if (held > 0 && !before) {
    const waiting = [...ctx.tasks.values()].filter(waitsForApply).length;
    ctx.bus.emit({
      type: 'admission.held',
      rule: 'apply-queue',
      held,
      detail: `${waiting} approved task(s) wait for the apply (limit ${ctx.options.maxApplyQueue ?? ctx.options.maxParallel}): ${held} task(s) not started yet wait before getting a worktree`,
    });
  }
  return held > 0;
}

/** Emits `admission.held` when the worktree disk cap starts holding tasks back; returns whether it does. */
function announceDiskCap(
  ctx: DispatchContext,
  decisions: readonly AdmissionDecision[],
  before: boolean,
): boolean {
  const held = countOf(decisions, 'waiting-disk');
  if (held > 0 && !before)
    ctx.bus.emit({
      type: 'admission.held',
      rule: 'worktree-disk',
      held,
      detail: `the task worktrees take ${formatBytes(worktreeBytes([...ctx.tasks.values()].map((rt) => rt.state)))} of the ${formatBytes(ctx.options.worktreeDiskCap ?? 0)} cap (isolation.maxDiskBytes): ${held} task(s) not started yet wait for archives or \`switchyard clean --blocked\` to free some`,
    });
  return held > 0;
}

function countOf(decisions: readonly AdmissionDecision[], status: AdmissionDecision['status']) {
  let n = 0;
  for (const d of decisions) if (d.status === status) n += 1;
  return n;
}
