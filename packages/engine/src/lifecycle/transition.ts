import { FINAL_PHASE, type Phase } from '@switchyard/core/lifecycle';
import { type Effect, LIFECYCLE, type LifecycleFacts, type Outcome } from './lifecycle-table.js';

/** The part of a task's state the lifecycle moves. */
export interface LifecycleState {
  phase: Phase;
  planLoop: number;
}

/** The result of a transition: the next state and the effects to perform, in order. */
export type Transition =
  | { ok: true; state: LifecycleState; effects: readonly Effect[] }
  | { ok: false; reason: string };

/**
 * The one way a task moves: pure, from the lifecycle table. An outcome the table does not
 * declare for the phase is refused (`ok: false`) — a dispatcher bug, never a silent move.
 */
export function transition(
  state: LifecycleState,
  outcome: Outcome,
  facts: LifecycleFacts,
): Transition {
  if (state.phase === FINAL_PHASE) {
    return { ok: false, reason: `a done task has no further stage (outcome ${outcome})` };
  }
  const row = LIFECYCLE[state.phase].outcomes[outcome];
  if (!row) {
    return { ok: false, reason: `stage ${state.phase} declares no outcome "${outcome}"` };
  }
  const branch = row.next.find((b) => b.if === undefined || facts[b.if]);
  if (!branch) {
    return { ok: false, reason: `no branch of ${state.phase}/${outcome} applies` };
  }
  const planLoop = row.effects.includes('start-plan-loop') ? state.planLoop + 1 : state.planLoop;
  return { ok: true, state: { phase: branch.to, planLoop }, effects: row.effects };
}
