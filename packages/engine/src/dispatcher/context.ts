import { redactedCopy } from '@switchyard/runner-kit';
import type { DispatchContext, TaskRuntime } from './types.js';

/**
 * Persists a task's state as it is now: a compare-and-set on the version this run last
 * wrote, fenced by the task's lease, secrets redacted; the target faults it saw go to the
 * store's shared target state first. Writes of one task go out one after
 * another in call order (each a snapshot taken at the call).
 */
export function persist(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  rt.unsaved = false;
  rt.state.updatedAt = ctx.now().toISOString();
  const snapshot = redactedCopy(rt.state, ctx.secrets);
  const write = async () => {
    const fence = await ctx.leases.fenceFor(rt.id);
    for (const fault of rt.targetFaults?.splice(0) ?? []) {
      if (fault.park) await ctx.store.targets.park(fault.target, fault.until, { fence });
      else await ctx.store.targets.coolDown(fault.target, fault.until, fault.reason, { fence });
    }
    rt.version = await ctx.store.tasks.put(snapshot, { expected: rt.version, fence });
  };
  const previous = rt.persisting;
  const done = previous ? previous.then(write, write) : write();
  rt.persisting = done.catch(() => undefined);
  return done;
}

/**
 * Leaves a pure transition for the task's next `persist` to write (one write instead of two).
 * Each write of a task's state is a file replacement on the file store, about a twelfth of the
 * dispatcher's CPU per task, so the transitions whose loss a crash can afford are merged into
 * the write after them. The rules every write keeps: nothing already done is lost (an
 * attempt's outcome, a failure counted, a correction, a block), and a crash never starts an
 * attempt twice (its `starting` record is written before its agent is spawned, see
 * run-attempt.ts). Per stage, after a crash before the next write:
 *
 * - the start mode (`isolationMode`, recorded at the first stage): a task with no attempt and
 *   no worktree takes the run's mode again; the worktree record or the first attempt's
 *   `starting` record, written before anything runs for the task, carries it (a `runner:
 *   local` command runs without such a record first, so its mode is written at once);
 * - a passed write-set check of the shared workspace (snapshots), a passed change verification
 *   of a plan without a definition of done, a kept completion promise: each judges files
 *   the task's claim keeps as they are, so it runs again with the same result (its work-log
 *   rows and evidence file written again; a round already taken reads as nothing to judge,
 *   which passes as it did). A failed check, a correction or a block is written at once.
 *
 * What the next write is: the review's `starting` record (the check stages lead to it), the
 * archive's record of its `complete.log` (after the promise), or any write of the task (a
 * block, a hold); a task whose next stage does not start in the same scheduling pass is written
 * a second after it unless that stage started meanwhile (waiting-writes.ts: status and the
 * monitor read the phase from the store); a run that ends before one writes what is left
 * (`finalizeRun`).
 */
export function persistLater(rt: TaskRuntime): void {
  rt.unsaved = true;
}

/**
 * `persistLater` with a bound: when no write of the task carried its transitions within `ms`
 * (on the run's clock, one deferred write per `key`) and `due()` still holds, they are written
 * then. For a record worth having on the store while
 * a stage runs long (the PID of a running attempt: status and a restart then find its process
 * without a marker scan) that a short stage leaves to its end's write. `due` must only hold
 * while the task's state in memory is one a crash may find (no transition half made). A
 * failed write is left to that end's write, which meets the same failure (a lease lost to
 * another machine, a full disk) and reports it where the stage handles it.
 */
export function persistWithin(
  ctx: DispatchContext,
  rt: TaskRuntime,
  key: string,
  ms: number,
  due: () => boolean,
): void {
  persistLater(rt);
  // Keyed by the caller (an attempt): a later stage of the task has its own `ms` to run.
  ctx.deferred.defer(key, ms, async () => {
    if (!rt.unsaved || !due() || (ctx.shared && !ctx.shared.owned.has(rt.id))) return;
    await persist(ctx, rt).catch(() => undefined); // the stage's end writes it anyway
  });
}

/**
 * Writes the transitions `persistLater` left that no later write carried: a task in `skip`
 * (its next stage is under way and writes first) and a task another dispatcher took over (its
 * to write) are left alone. A failed write is reported with the run's control failures.
 */
export async function writeUnsaved(
  ctx: DispatchContext,
  skip: { has(task: string): boolean } = new Set(),
): Promise<void> {
  for (const rt of ctx.tasks.values()) {
    if (!rt.unsaved || skip.has(rt.id)) continue;
    if (ctx.shared && !ctx.shared.owned.has(rt.id)) continue;
    try {
      await persist(ctx, rt);
    } catch (error) {
      ctx.controlFailures.push(`${rt.id}: cannot persist state: ${String(error)}`);
    }
  }
}
