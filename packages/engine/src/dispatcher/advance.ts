import { type Correction, SwitchyardError, type TaskState } from '@switchyard/core';
import {
  type Effect,
  type FailureCounterName,
  type LifecycleFacts,
  type Outcome,
  PLAN_LOOP_RESETS,
  stageRow,
  transition,
} from '../lifecycle/index.js';
import type { TaskRuntime } from './types.js';

/** What a stage handler reports besides the outcome. */
export interface AdvanceInput {
  /** Facts the table's guards read (defaults from the task; see below). */
  facts?: Partial<LifecycleFacts>;
  /** For `record-correction`: what the worker is told next. */
  correction?: Correction;
}

/**
 * Moves a task by the lifecycle table: the only place a task's phase changes. Performs the
 * transition's state effects in order (in memory; the caller persists). An outcome the table
 * does not declare for the phase is a dispatcher bug and throws.
 */
export function advance(rt: TaskRuntime, outcome: Outcome, input: AdvanceInput = {}): void {
  const state = rt.state;
  const facts: LifecycleFacts = {
    selfcheckRequired: false,
    // An agent's change is always verified there (stubs, tests); a local command's only with a DoD.
    hasGate: rt.task.definitionOfDone !== undefined || rt.task.runner !== 'local',
    isolated: rt.state.isolation !== undefined,
    writesChecked: rt.task.runner !== 'local',
    localRunner: rt.task.runner === 'local',
    hasProjectGates: rt.hasProjectGates === true,
    redTeam: rt.task.review === 'red-team',
    minorNotes: false,
    fixedUp: rt.state.fixup?.planLoop === rt.state.planLoop,
    ...input.facts,
  };
  const from = state.phase;
  const next = transition(state, outcome, facts);
  if (!next.ok) {
    throw new SwitchyardError('SY_INTERNAL', `lifecycle of ${rt.id}: ${next.reason}`);
  }
  for (const effect of next.effects) applyEffect(state, from, effect, input);
  state.phase = next.state.phase;
  state.planLoop = next.state.planLoop;
}

function applyEffect(
  state: TaskState,
  from: TaskState['phase'],
  effect: Effect,
  input: AdvanceInput,
): void {
  // The stage's consecutive-failure counter, when its row keeps one.
  const budget = stageRow(from)?.failureCounter ? (from as FailureCounterName) : undefined;
  switch (effect) {
    case 'reset-failures':
      if (budget) state.failures[budget] = 0;
      // A stage that passed starts its park budget over too.
      if (state.parkSpent?.stage === budget) delete state.parkSpent;
      return;
    case 'count-failure':
      if (budget) state.failures[budget] += 1;
      return;
    case 'reset-selfcheck-retries':
      state.selfcheckRetries = 0;
      return;
    case 'count-selfcheck-retry':
      state.selfcheckRetries += 1;
      return;
    case 'clear-correction':
      delete state.correction;
      return;
    case 'record-correction':
      if (input.correction) state.correction = input.correction;
      return;
    case 'clear-failover':
      delete state.failoverFrom;
      return;
    case 'clear-backoff':
      delete state.notBefore;
      return;
    case 'mark-work':
      state.work = (state.work ?? 0) + 1;
      return;
    case 'mark-verified':
      if (from !== 'done') state.verified = { ...state.verified, [from]: state.work ?? 0 };
      return;
    case 'mark-fixed-up':
      state.fixup = { planLoop: state.planLoop, work: state.work ?? 0 };
      return;
    case 'clear-fixup':
      delete state.fixup;
      return;
    case 'start-plan-loop':
      state.selfcheckRetries = 0;
      for (const stage of PLAN_LOOP_RESETS) state.failures[stage] = 0;
      delete state.correction;
      return;
  }
}
