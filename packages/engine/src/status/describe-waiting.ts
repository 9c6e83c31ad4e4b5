import type { TaskState } from '@switchyard/core';
import { formatBytes } from '@switchyard/utils';
import type { AdmissionDecision, WorktreeDiskState } from '../admission/admit.js';
import { INITIAL_PHASE, phaseLabel } from '../lifecycle/index.js';
import { parkBudgetText } from '../selection/park.js';
import type { WaitingEntry } from './status-types.js';

/**
 * The waiting line of a task that has no running attempt, is not blocked and not done: a
 * backoff first (it outranks admission), else what admission says holds it back.
 */
export function describeWaiting(
  task: string,
  state: TaskState | undefined,
  decision: AdmissionDecision | undefined,
  now: Date,
  /** Whether a dispatcher works now, and whether the next run would refuse to start. */
  run: { dispatcherRunning: boolean; runRefused?: boolean },
  /** Tasks that are blocked (a claim one of them holds is kept until it is settled). */
  blocked: ReadonlySet<string> = new Set(),
  disk?: WorktreeDiskState,
): WaitingEntry {
  const phase = state?.phase ?? INITIAL_PHASE;
  const base: WaitingBase = { task, phase, planLoop: state?.planLoop ?? 1 };
  return (
    (state && heldByItsState(base, state, now)) ??
    heldByAdmission(base, decision, {
      dispatcherRunning: run.dispatcherRunning,
      runRefused: run.runRefused === true,
      blocked,
      disk,
    })
  );
}

type WaitingBase = Pick<WaitingEntry, 'task' | 'phase' | 'planLoop'>;

/** What admission needs besides its decision to say why a task waits. */
interface AdmissionFacts {
  dispatcherRunning: boolean;
  /** The next run refuses before anything starts (status's `runRefusal`). */
  runRefused: boolean;
  blocked: ReadonlySet<string>;
  disk: WorktreeDiskState | undefined;
}

/** A wait the task's own state holds it in (a waiting apply, a park, a backoff), if any. */
function heldByItsState(base: WaitingBase, state: TaskState, now: Date): WaitingEntry | undefined {
  const { isolation, parked } = state;
  if (base.phase === 'apply' && isolation?.waiting)
    return {
      ...base,
      kind: 'apply',
      why: `the apply to ${isolation.sourceBranch} waits: ${isolation.waiting.replace(/^waiting: /, '')}; ${applyWaitAdvice(isolation.waiting, isolation.sourceBranch)}`,
    };
  if (parked && parked.until === state.notBefore && Date.parse(parked.until) > now.getTime()) {
    return {
      ...base,
      kind: 'parked',
      why: `parked until ${parked.until}: every candidate of the ${phaseLabel(parked.stage)} waits for its quota to reset (${Object.entries(
        parked.resets,
      )
        .map(([target, at]) => `${target} at ${at}`)
        .join(', ')})${parked.budget ? `; park budget: ${parkBudgetText(parked.budget)}` : ''}`,
      until: parked.until,
      ...(parked.budget ? { parkBudget: parked.budget } : {}),
    };
  }
  if (state.notBefore && Date.parse(state.notBefore) > now.getTime()) {
    const failures = Math.max(...Object.values(state.failures));
    return {
      ...base,
      kind: 'backoff',
      why: `retry of the ${phaseLabel(base.phase)} after ${failures} consecutive failure(s), not before ${state.notBefore}`,
      until: state.notBefore,
    };
  }
  return undefined;
}

/** What admission says holds the task back (or that it is ready). */
function heldByAdmission(
  base: WaitingBase,
  decision: AdmissionDecision | undefined,
  facts: AdmissionFacts,
): WaitingEntry {
  const next = phaseLabel(base.phase);
  const { disk } = facts;
  switch (decision?.status) {
    case 'waiting-dependencies':
      return {
        ...base,
        kind: 'dependencies',
        why: `waits on ${(decision.waitingOn ?? []).join(', ')}`,
      };
    case 'dependency-blocked':
      return {
        ...base,
        kind: 'dependency-blocked',
        why: `waits on blocked ${(decision.waitingOn ?? []).join(', ')}`,
      };
    case 'waiting-claim':
      return claimWait(base, decision.conflicts ?? [], facts.blocked);
    case 'waiting-slot':
      return {
        ...base,
        kind: 'slot',
        why: `ready; waits for a free slot (max-parallel) to run the ${next}`,
      };
    case 'waiting-disk':
      return {
        ...base,
        kind: 'disk',
        why: `waits for worktree disk: the task worktrees take ${disk ? `${formatBytes(disk.bytes)} of the ${formatBytes(disk.cap)}` : 'all of the'} cap (isolation.maxDiskBytes); archived tasks free theirs, \`switchyard clean --blocked\` removes blocked ones`,
      };
    case 'out-of-scope':
      return { ...base, kind: 'out-of-scope', why: 'outside the --task-group of the run' };
    default:
      return {
        ...base,
        kind: 'ready',
        why: facts.dispatcherRunning
          ? `ready; the dispatcher starts the ${next} next`
          : facts.runRefused
            ? `ready, but the next \`switchyard run\` refuses to start until the problems under "next run refuses" are fixed; then it starts the ${next}`
            : `ready; the next \`switchyard run\` starts the ${next}`,
      };
  }
}

/** A write set that collides with held claims; a blocked holder keeps its claim until settled. */
function claimWait(
  base: WaitingBase,
  conflicts: NonNullable<AdmissionDecision['conflicts']>,
  blocked: ReadonlySet<string>,
): WaitingEntry {
  const list = conflicts
    .map(
      (x) => `${x.path} (held by ${x.holder}${blocked.has(x.holder) ? ', which is blocked' : ''})`,
    )
    .join(', ');
  const holders = [...new Set(conflicts.map((x) => x.holder).filter((h) => blocked.has(h)))];
  if (holders.length === 0)
    return { ...base, kind: 'claim', why: `write set collides with an active claim: ${list}` };
  return {
    ...base,
    kind: 'claim',
    why: `write set collides with an active claim: ${list}. A blocked task in the shared workspace keeps its claim (its unfinished changes are in those files): retry it (\`switchyard resolve ${holders[0]} --retry\`), or undo its changes and archive or remove it`,
    blockedHolders: holders,
  };
}

/** What the user does so a waiting apply goes on (the reason comes from the isolation plugin). */
function applyWaitAdvice(waiting: string, sourceBranch: string): string {
  if (/checkout is on /.test(waiting))
    return `switch back to ${sourceBranch} (git switch ${sourceBranch}) and it goes on`;
  if (/index\.lock/.test(waiting))
    return 'it goes on once that git command ends (delete a stale .git/index.lock if none runs)';
  return 'commit, stash or revert those changes and it goes on';
}
