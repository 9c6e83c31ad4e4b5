import {
  redTeamCandidates,
  resolveNamedTarget,
  reviewCandidates,
} from '@switchyard/catalog/dry-run';
import type { Problem } from '@switchyard/core/dry-run';
import { candidateOrder } from '../selection/decide.js';
import type { DryRunStage } from './report.js';

/** A route's candidates for a stage now (undefined: no catalog, no route, or a selection error). */
export type StageSelection = {
  candidates: string[];
  window?: DryRunStage['window'];
};

/** What the stages of one task are decided from. */
export interface StageInput {
  route: string | undefined;
  /** The PLAN's `target` pin. */
  pin: string | undefined;
  /** The run's `with <name>`: a target id or an agent identity. */
  withName: string | undefined;
  /** `review: red-team`: a second review by another agent family. */
  redTeam: boolean;
  /** Target id → agent identity (the catalog's targets). */
  agents: ReadonlyMap<string, string>;
  select: (stage: string) => StageSelection | undefined;
  /** Stage names in lifecycle order. */
  stages: readonly string[];
  /** The task's plan file, for its problems. */
  planFile: string;
}

/**
 * The target each stage of a task would use now, as the dispatcher decides it: the worker
 * from the PLAN pin, else `with` (a target id, or the agent's first worker candidate of the
 * route), else the route; the review from its route without the worker's target while the
 * route has another; with `review: red-team`, the red-team review from the review route's
 * candidates of another agent family than the worker's (none is an error: the live run would
 * pay a worker and a review, then block).
 */
export function stageTargets(input: StageInput): {
  stages: Record<string, DryRunStage>;
  problems: Problem[];
} {
  const problems: Problem[] = [];
  const stages: Record<string, DryRunStage> = {};
  const workerRoute = input.select('worker');
  let withTarget: string | undefined;
  if (input.withName !== undefined && input.pin === undefined && input.route && workerRoute) {
    const named = resolveNamedTarget(input.withName, 'with', {
      agents: input.agents,
      routeId: input.route,
      workerCandidates: workerRoute.candidates,
    });
    if ('target' in named) withTarget = named.target;
    else
      problems.push({
        code: 'SY_USAGE',
        message: named.error,
        file: input.planFile,
        hint: named.hint,
        severity: 'error',
      });
  }
  const worker = explicitStage(workerRoute, input.pin, withTarget);
  for (const stage of input.stages) {
    if (stage === 'worker') stages[stage] = worker;
    else stages[stage] = reviewStage(input.select(stage), worker.selected ?? undefined);
  }
  if (input.redTeam) {
    const red = redTeamStage(input, worker.selected ?? undefined);
    stages.redteam = red.stage;
    if (red.problem) problems.push(red.problem);
  }
  return { stages, problems };
}

function explicitStage(
  routed: StageSelection | undefined,
  pin: string | undefined,
  withTarget: string | undefined,
): DryRunStage {
  // The order the run tries them in: an explicit target first, the route's others as failover.
  const candidates = candidateOrder(pin ?? withTarget, routed?.candidates ?? []);
  const out: DryRunStage = pin
    ? { selected: pin, selected_by: 'pin', candidates }
    : withTarget
      ? { selected: withTarget, selected_by: 'with', candidates }
      : {
          selected: candidates[0] ?? null,
          selected_by: candidates[0] ? 'route' : 'none',
          candidates,
        };
  if (routed?.window) out.window = routed.window;
  return out;
}

function reviewStage(routed: StageSelection | undefined, worker: string | undefined): DryRunStage {
  const route = routed?.candidates ?? [];
  const candidates = reviewCandidates(route, worker);
  const out: DryRunStage = {
    selected: candidates[0] ?? null,
    selected_by: candidates[0] ? 'route' : 'none',
    candidates,
  };
  if (worker !== undefined && route.includes(worker) && !candidates.includes(worker))
    out.not_worker = worker;
  if (routed?.window) out.window = routed.window;
  return out;
}

function redTeamStage(
  input: StageInput,
  worker: string | undefined,
): { stage: DryRunStage; problem?: Problem } {
  const route = input.select('review')?.candidates ?? [];
  const family = worker === undefined ? undefined : input.agents.get(worker);
  const candidates = redTeamCandidates(route, worker, input.agents);
  const stage: DryRunStage = {
    selected: candidates[0] ?? null,
    selected_by: candidates[0] ? 'route' : 'none',
    candidates,
  };
  if (candidates.length > 0 || worker === undefined || !input.route) return { stage };
  return {
    stage,
    problem: {
      code: 'SY_PLAN_INVALID',
      message: `the red-team review needs a review candidate of another agent family than the worker's (${worker}: ${family ?? 'unknown'}), and route ${input.route} has none: the run would pay a worker and a review, then block`,
      file: input.planFile,
      hint: `add a target of another agent to the review candidates of ${input.route}, choose another worker (target pin, \`with\`), or drop \`review: red-team\` / the risk that asks for it`,
      severity: 'error',
    },
  };
}
