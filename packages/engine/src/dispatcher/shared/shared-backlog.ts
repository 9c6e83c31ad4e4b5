import { existsSync } from 'node:fs';
import {
  type BacklogView,
  fenceOf,
  newTaskState,
  type SharedBacklogPort,
  SwitchyardError,
} from '@switchyard/core';
import { attemptDirOf } from '../agent/attempt-spec.js';
import { persist } from '../context.js';
import { readmitPlan } from '../corrections/admitted-plan.js';
import { sealInterruptedRows } from '../landing/seal-open-rows.js';
import { recoverTask } from '../recover.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { stuckInBacklog } from './backlog-stuck.js';
import { tryBacklog } from './backlog-trouble.js';
import { announceBacklogWaits } from './backlog-waits.js';
import { releaseBlockedClaim } from './blocked-claims.js';
import { recordLandedTakeover } from './landed-takeover.js';
import { materializeArchive, readArchiveFiles } from './shared-archive.js';
import type { SharedRun } from './shared-run.js';

/** The run's share of the backlog (`options.backlog`), or none without one. */
export function openSharedRun(
  backlog: SharedBacklogPort | undefined,
  leaseMs: number,
): SharedRun | undefined {
  if (!backlog) return undefined;
  return {
    backlog,
    owned: new Set(),
    status: new Map(),
    settled: new Set(),
    pollMs: Math.max(200, Math.floor(leaseMs / 3)),
  };
}

/** True when the task is this run's to work on (always, without a shared backlog). */
export function ownsTask(ctx: DispatchContext, id: string): boolean {
  return !ctx.shared || ctx.shared.owned.has(id);
}

/**
 * One scheduling pass's look at the backlog: finishes this run's tasks that ended, takes in
 * the ends of other machines' tasks, then takes up to `room` more tasks. A backlog operation
 * that fails for a passing reason is left to the next pass (backlog-trouble.ts).
 */
export async function syncSharedBacklog(
  ctx: DispatchContext,
  running: ReadonlySet<string>,
  room: number,
): Promise<Map<string, Promise<void>>> {
  const live = new Map<string, Promise<void>>();
  const shared = ctx.shared;
  if (!shared) return live;
  shared.retryPass = false;
  for (const id of [...shared.owned]) {
    const rt = ctx.tasks.get(id);
    if (!rt || running.has(id) || !(rt.state.phase === 'done' || rt.state.blocked)) continue;
    await rt.persisting;
    const archived = rt.state.phase === 'done';
    try {
      const fence = await ctx.leases.fenceFor(id);
      // Its claims first, fenced (blocked-claims.ts): a crash before the record leaves them to
      // the machine that takes the task over, which releases them the same way.
      const ended = await tryBacklog(ctx, shared, `${id}: recording its end`, async () => {
        if (!archived) await releaseBlockedClaim(ctx, rt, fence);
        await shared.backlog.finish(
          id,
          archived ? 'archived' : 'blocked',
          fence,
          archived ? readArchiveFiles(ctx, id) : undefined,
        );
      });
      // Still this run's (its lease is renewed meanwhile): the end is recorded on a later pass.
      if (!ended.ok) continue;
    } catch (error) {
      // Its lease moved before the end was recorded (this dispatcher missed its renewals): the
      // task is the new holder's, which finds a pushed commit on the remote branch.
      if (!SwitchyardError.is(error) || error.code !== 'SY_LEASE_LOST') throw error;
      loseTask(ctx, id);
      continue;
    }
    shared.owned.delete(id);
    shared.settled.add(id);
    await ctx.leases.release(id);
  }
  const views = await tryBacklog(ctx, shared, 'reading the backlog', () => shared.backlog.list());
  if (!views.ok) return live;
  shared.status = new Map(views.value.map((view) => [view.task, view]));
  // A dependency archived on another machine counts as archived here even when this workspace
  // has no folder of it (a worker writes only the open tasks): its dependents are admitted.
  for (const view of shared.status.values())
    if (view.status === 'archived' && !ctx.tasks.has(view.task)) ctx.archived.add(view.task);
  for (const view of shared.status.values()) {
    const rt = ctx.tasks.get(view.task);
    if (!rt || shared.owned.has(rt.id) || shared.settled.has(rt.id)) continue;
    if (view.status === 'archived' || view.status === 'blocked')
      await settleElsewhere(ctx, rt, view);
  }
  announceBacklogWaits(ctx, shared, (rt) => inScope(ctx, rt));
  while (room > 0 && !ctx.signal.aborted) {
    const taken = await tryBacklog(ctx, shared, 'taking a task', () =>
      shared.backlog.take(ctx.leases.holder, ctx.leases.ttlMs),
    );
    if (!taken.ok) return live;
    const delivery = taken.value;
    if (!delivery) return live;
    if (shared.owned.has(delivery.task)) {
      // Its own task, whose lease ran out unseen and came back to it: the same lease, renewed.
      ctx.leases.adopt(delivery.lease);
      continue;
    }
    const rt = ctx.tasks.get(delivery.task);
    if (!rt || !inScope(ctx, rt) || !rt.task.valid) {
      // Not a task of this workspace (or of this run's scope): another dispatcher takes it.
      const given = await tryBacklog(ctx, shared, `${delivery.task}: giving it back`, () =>
        shared.backlog.requeue(delivery.task, fenceOf(delivery.lease), 10),
      );
      // Not given back: its lease expires, and it is taken over as any orphan is.
      if (!given.ok) return live;
      continue;
    }
    ctx.leases.adopt(delivery.lease);
    shared.owned.add(rt.id);
    shared.settled.delete(rt.id);
    delete rt.halted;
    const attached = await takeUp(ctx, rt);
    if (attached) live.set(rt.id, attached);
    room -= 1;
  }
  return live;
}

/**
 * True while an in-scope task can still move in the backlog: neither archived, nor blocked,
 * nor waiting behind a blocked task (that one waits for a human, not for a machine).
 */
export function sharedWorkLeft(ctx: DispatchContext): boolean {
  const shared = ctx.shared;
  if (!shared) return false;
  if (shared.retryPass) return true;
  const stuck = stuckInBacklog(shared.status);
  return [...ctx.tasks.values()].some((rt) => {
    const view = shared.status.get(rt.id);
    if (!view || !inScope(ctx, rt)) return false;
    if (view.status === 'archived' || stuck.has(rt.id)) return false;
    // A task of this run held by a control-plane failure cannot move: the run ends (exit 1).
    return !(shared.owned.has(rt.id) && rt.halted !== undefined);
  });
}

/**
 * The task's lease was taken over (this dispatcher missed its renewals: it froze, or lost
 * the database): its agent is stopped, its worktree stays as evidence, and the run writes and
 * lands nothing more for it. It waits for the task's end on the machine that took it.
 */
export function loseTask(ctx: DispatchContext, id: string): void {
  const rt = ctx.tasks.get(id);
  ctx.shared?.owned.delete(id);
  forgetClaims(ctx, id);
  if (rt) {
    rt.halted = `its lease was taken over by another dispatcher`;
    for (const record of rt.state.attempts)
      if (record.status !== 'finished') void ctx.handles.get(record.id)?.cancel();
  }
  ctx.bus.emit({
    type: 'control.failure',
    code: 'SY_LEASE_LOST',
    message: `${id}: its lease was taken over by another dispatcher; its agent is stopped, its worktree kept, and this run lands nothing for it`,
  });
  ctx.shared?.wake?.();
}

/** A task this run no longer holds keeps no claim in its index: its holder's claims are in
 * the store, and a stale entry here would hold this run's tasks back for good. */
function forgetClaims(ctx: DispatchContext, id: string): void {
  for (const [path, holder] of ctx.claimIndex) if (holder === id) ctx.claimIndex.delete(path);
}

function inScope(ctx: DispatchContext, rt: TaskRuntime): boolean {
  return !ctx.options.taskGroup || rt.group === ctx.options.taskGroup;
}

/** Another machine archived or blocked the task: its record becomes this run's view of it. */
async function settleElsewhere(
  ctx: DispatchContext,
  rt: TaskRuntime,
  view: BacklogView,
): Promise<void> {
  const stored = await ctx.store.tasks.get(rt.id);
  if (stored) {
    rt.state = stored.value;
    rt.version = stored.version;
  }
  delete rt.halted;
  ctx.shared?.settled.add(rt.id);
  forgetClaims(ctx, rt.id);
  if (view.status !== 'archived') return;
  ctx.archived.add(rt.id);
  materializeArchive(ctx, rt, view.archive);
}

/**
 * A task just taken. Its stored state is read again (another machine may have worked on it
 * since this run started). Attempts and a worktree this machine knows are recovered as after
 * a restart; work another machine began (its worktree and captures are on that machine) is
 * started over here from the plan, unless that machine ended it (blocked or done): the end
 * stays. A task whose commit is on the remote branch already (its
 * holder pushed it and died before recording it) is archived from that commit, no agent run.
 */
async function takeUp(ctx: DispatchContext, rt: TaskRuntime): Promise<Promise<void> | undefined> {
  const stored = await ctx.store.tasks.get(rt.id);
  if (stored) {
    rt.state = stored.value;
    rt.version = stored.version;
  }
  const settledAttempts = rt.state.attempts.every((a) => a.status === 'finished');
  // Saved blocked or done on a machine (this one, restarted, or another) that died before
  // recording that end in the backlog: the end is kept (a block waits for a human, not for a
  // fresh budget), and this run records it at its next pass, as its holder would have.
  if ((rt.state.blocked || rt.state.phase === 'done') && (settledAttempts || !isLocal(ctx, rt))) {
    if (rt.state.phase === 'done') ctx.archived.add(rt.id);
    ctx.shared?.wake?.();
    await sealInterruptedRows(ctx, rt);
    return undefined;
  }
  // Its commit pushed by a holder that died before recording it: recorded, nothing runs again.
  // (An attempt of this machine that may still run is recovered first: its apply finds it.)
  if (settledAttempts && (await recordLandedTakeover(ctx, rt))) {
    await sealInterruptedRows(ctx, rt);
    return undefined;
  }
  if (isLocal(ctx, rt)) {
    // An attempt of this machine still alive is re-attached: the scheduler waits for it.
    const { live } = await recoverTask(ctx, rt);
    await sealInterruptedRows(ctx, rt);
    return live;
  }
  const { planLoop } = rt.state;
  rt.state = newTaskState(rt.id, ctx.now());
  rt.state.planLoop = Math.max(1, Math.min(planLoop, rt.files?.planLoop ?? planLoop));
  if (!readmitPlan(ctx, rt, rt.files)) delete rt.state.plan;
  if (rt.files) rt.task = rt.files;
  await persist(ctx, rt);
  // The attempts of the machine it was taken from end here: their rows get their FINISH.
  await sealInterruptedRows(ctx, rt);
  return undefined;
}

/**
 * Whether the task's attempts and worktree (if any) are this workspace's. Its attempts are
 * when each one's folder is this workspace's folder of that attempt (the id is unique): a
 * dispatcher restarted here then re-attaches an agent its killed predecessor left running,
 * and never starts another one beside it in the same worktree. A task with no attempt yet is
 * this run's only with a worktree this run knows (another machine's path may exist here too).
 */
function isLocal(ctx: DispatchContext, rt: TaskRuntime): boolean {
  const { attempts, isolation } = rt.state;
  if (attempts.length === 0) return !isolation || !!ctx.options.isolation?.worktreeOf(rt.id);
  return attempts.every(
    (a) => a.attemptDir === attemptDirOf(ctx, a.id) && existsSync(a.attemptDir),
  );
}
