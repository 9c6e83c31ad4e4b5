import type { CatalogTarget } from '@switchyard/catalog';
import type { AttemptRecord, Classification, Decision } from '@switchyard/core';
import { type AttemptRoleName, decisionKeyOf, LIFECYCLE } from '../../lifecycle/index.js';
import { persist } from '../context.js';
import { applyFailure } from '../landing/apply-failure.js';
import { holdForSharedTarget } from '../shared/shared-targets.js';
import { openSharedRound } from '../shared/shared-writes.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { newAttemptId } from './attempt-spec.js';
import { runStageAttempt } from './stage-attempt.js';

/** What an agent stage hands the attempt: its prompt, the native context it resumes, its env. */
export interface PreparedAttempt {
  prompt: string;
  resumeArgv?: readonly string[] | undefined;
  extraEnv?: Readonly<Record<string, string>>;
}

/** The attempt a stage prepares: its id and the target its decision names. */
export interface AttemptPlace {
  attemptId: string;
  decision: Decision;
  target: CatalogTarget;
}

/**
 * The parts of one agent stage (worker, self-check, reviews, fixup) that differ from another's.
 * The attempt flow around them is {@link runAgentStage}'s; the decision key, the failure
 * counter and failover come from the stage's row of the lifecycle table.
 */
export interface AgentStage {
  role: AttemptRoleName;
  /** The stage's decision, or undefined when the stage must not run (the task is blocked). */
  decide: (ctx: DispatchContext, rt: TaskRuntime) => Decision | undefined;
  /** The stage waits out a cool-down its shared target is in (every stage whose target comes
   * from the catalog's routes; the fixup's is named by the config). */
  holdsSharedTarget: boolean;
  /** The stage changes files: in the shared workspace they are measured against snapshots. */
  changesFiles: boolean;
  /** The prompt and the native context to resume, or undefined when the task was blocked. */
  prepare: (
    ctx: DispatchContext,
    rt: TaskRuntime,
    place: AttemptPlace,
  ) => Promise<PreparedAttempt | undefined>;
  /** Where a successful attempt moves the task (a failed one follows the stage's failure rules). */
  onSuccess: (ctx: DispatchContext, rt: TaskRuntime, record: AttemptRecord) => void | Promise<void>;
}

/** Runs one attempt of an agent stage and moves the task on from its verdict. */
export async function runAgentStage(
  ctx: DispatchContext,
  rt: TaskRuntime,
  stage: AgentStage,
): Promise<void> {
  const { role } = stage;
  const decision = stage.decide(ctx, rt);
  if (!decision) return persist(ctx, rt);
  if (stage.holdsSharedTarget) {
    const held = {
      decisionKey: decisionKeyOf(role),
      budget: role,
      failover: LIFECYCLE[role].failover,
    };
    if (await holdForSharedTarget(ctx, rt, held)) return persist(ctx, rt);
  }
  const target = ctx.catalog.targets[decision.target]!;
  const attemptId = newAttemptId(rt.id, role, rt.state.planLoop);
  const prepared = await stage.prepare(ctx, rt, { attemptId, decision, target });
  if (!prepared) return persist(ctx, rt);
  if (stage.changesFiles) await openSharedRound(ctx, rt, attemptId);
  const { record, verdict } = await runStageAttempt(ctx, rt, {
    attemptId,
    role,
    targetId: decision.target,
    target,
    ...prepared,
  });
  await settleAgentAttempt(ctx, rt, stage, record, verdict);
  await persist(ctx, rt);
}

/**
 * An agent attempt's verdict -> the task's next phase: a failure counts against the stage's
 * counter and may fail over (./landing/apply-failure.ts); a success is the stage's to judge.
 */
export async function settleAgentAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  stage: AgentStage,
  record: AttemptRecord,
  verdict: Classification,
): Promise<void> {
  if (verdict.class !== 'success') {
    applyFailure(ctx, rt, stage.role, decisionKeyOf(stage.role), record, verdict);
    return;
  }
  await stage.onSuccess(ctx, rt, record);
}
