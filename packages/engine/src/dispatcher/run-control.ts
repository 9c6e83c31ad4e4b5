import { isOpen } from '@switchyard/store-fs';
import {
  type Actor,
  actionEvent,
  actionRow,
  type HumanActionOutcome,
  type HumanActionRequest,
  refused,
} from '../control/human-action.js';
import { retryBlockedTask } from './agent/runtimes.js';
import { persist } from './context.js';
import { maxPlanLoopsOf } from './corrections/plan-loop-cap.js';
import { blockStoppedTask } from './stop-task.js';
import type { DispatchContext, DispatchControl, TaskRuntime } from './types.js';

/**
 * A human's hold on a run in progress (the monitor started with it, `run --monitor`): the
 * run's dispatcher attaches while it schedules, and each action goes through the run's own
 * paths — stop-run through the dispatcher's stop (as a first Ctrl-C), retry through the retry
 * of `switchyard retry`, skip and resolve through the escalation's resolution as
 * `switchyard resolve` records it, stop-task through the cancel of the task's attempt. Each
 * action carried out is an event of the run and a row of the task's work log.
 */
export class RunControl implements DispatchControl {
  #live: { ctx: DispatchContext; stop: () => void } | undefined;
  #wake: (() => void) | undefined;

  /** A dispatcher schedules under this control now. */
  get live(): boolean {
    return this.#live !== undefined;
  }

  /** The dispatcher starts being controlled; returns the detach it calls when it ends. */
  attach(ctx: DispatchContext, stop: () => void): () => void {
    this.#live = { ctx, stop };
    return () => {
      this.#live = undefined;
      this.#wake = undefined;
    };
  }

  /** The scheduling loop's wake-up (a retried task may start at once). */
  bindWake(wake: () => void): void {
    this.#wake = wake;
  }

  /** Carries out one action on the live run; `SY_ACTION_REFUSED` when it does not apply. */
  async act(request: HumanActionRequest, actor: Actor): Promise<HumanActionOutcome> {
    const live = this.#live;
    if (!live)
      throw refused(
        'No run is going in this process.',
        'Act on the workspace with `switchyard resolve`.',
      );
    const { ctx } = live;
    if (request.action === 'stop-run') {
      if (ctx.signal.aborted)
        throw refused(
          'The run is stopping already.',
          'Wait for it to end; a second Ctrl-C in its terminal aborts the apply under way.',
        );
      const detail =
        'the run stops: nothing new starts, agents and gates stop, an apply under way finishes';
      this.#record(request, actor, detail, [
        ...new Set([...ctx.tasks.values()].filter((t) => t.state.phase !== 'done').map((t) => t)),
      ]);
      live.stop();
      return { action: request.action, detail };
    }
    const rt = ctx.tasks.get(request.task!);
    if (!rt)
      throw refused(
        `Task ${request.task} is not a task of this run.`,
        'Name an active task as <group>/<task>.',
      );
    if (request.action === 'stop-task') return this.#stopTask(ctx, rt, request, actor);
    const answer = request.action === 'resolve' ? request.answer! : request.action;
    if (!rt.state.blocked)
      throw refused(
        `Task ${rt.id} is not blocked; nothing to ${answer}.`,
        'Only a blocked task can be retried or skipped.',
      );
    if (answer === 'skip') {
      const escalation = await ctx.store.escalations.get(rt.id);
      if (!escalation || !isOpen(escalation.bundle, rt.state))
        throw refused(
          `Task ${rt.id} has no open escalation to skip.`,
          'Its escalation is being written or was resolved; reload the page.',
        );
      await ctx.store.escalations.resolve(rt.id, 'skip', ctx.now(), actor.by, request.note);
      const detail = 'skipped: it stays blocked and its dependents keep waiting';
      this.#record(request, actor, detail, [rt]);
      return { action: request.action, task: rt.id, detail };
    }
    const escalation = await ctx.store.escalations.get(rt.id);
    const open = escalation && isOpen(escalation.bundle, rt.state);
    if (!(await retryBlockedTask(ctx, rt)))
      throw refused(
        `Task ${rt.id} blocked at its plan-loop cap; a retry does not lift the cap.`,
        'Raise max_plan_loops in its PLAN.md front matter, then retry; or skip it.',
      );
    if (open)
      await ctx.store.escalations.resolve(rt.id, 'retry', ctx.now(), actor.by, request.note);
    const detail = 'retried with a fresh failure budget in this run';
    this.#record(request, actor, detail, [rt]);
    this.#wake?.();
    return { action: request.action, task: rt.id, detail };
  }

  async #stopTask(
    ctx: DispatchContext,
    rt: TaskRuntime,
    request: HumanActionRequest,
    actor: Actor,
  ): Promise<HumanActionOutcome> {
    if (rt.state.phase === 'done' || rt.state.blocked)
      throw refused(
        `Task ${rt.id} is ${rt.state.blocked ? 'blocked' : 'done'}; nothing runs to stop.`,
        'Stop a task that runs or waits.',
      );
    if (rt.stopRequested)
      throw refused(`Task ${rt.id} is stopping already.`, 'It blocks when its current step ends.');
    rt.stopRequested = {
      ...(actor.by ? { by: actor.by } : {}),
      ...(request.note ? { note: request.note } : {}),
    };
    const running = rt.state.attempts
      .filter((a) => a.status !== 'finished')
      .map((a) => ctx.handles.get(a.id));
    const detail = rt.busy
      ? `stopping: ${running.length ? 'its attempt is cancelled and' : 'when its current step ends'} the task blocks`
      : 'stopped: the task blocks';
    this.#record(request, actor, detail, [rt]);
    for (const handle of running) void handle?.cancel();
    if (!rt.busy && blockStoppedTask(ctx, rt)) {
      await persist(ctx, rt);
      this.#wake?.();
    }
    return { action: request.action, task: rt.id, detail };
  }

  /** The action's event on the run's bus and a HUMAN row in each task's group work log. */
  #record(request: HumanActionRequest, actor: Actor, detail: string, tasks: TaskRuntime[]): void {
    const { ctx } = this.#live!;
    ctx.bus.emit(actionEvent(request, actor, detail));
    const now = ctx.now();
    const groups = new Set<string>();
    for (const rt of tasks) {
      // stop-run: one row per group, on its first active task
      if (request.action === 'stop-run' && groups.has(rt.group)) continue;
      groups.add(rt.group);
      ctx.workLog.finish(
        rt.group,
        actionRow(
          request,
          actor,
          { id: rt.id, planLoop: rt.state.planLoop, maxPlanLoops: maxPlanLoopsOf(rt) },
          now,
        ),
      );
    }
  }
}
