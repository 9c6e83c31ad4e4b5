import type { ProjectConfig } from '@switchyard/config';
import type { DispatcherOptions } from '@switchyard/engine';

/** The dispatcher options a project config sets (every run and the in-process test harness
 * take them from here, so both run the engine as the config says). */
export type ConfiguredEngineOptions = Pick<
  DispatcherOptions,
  | 'retry'
  | 'park'
  | 'stallTimeoutMs'
  | 'costBudget'
  | 'prices'
  | 'maxAttemptMs'
  | 'maxAttemptEvidenceBytes'
  | 'maxApplyQueue'
  | 'maxRepeatedCorrections'
  | 'projectGates'
  | 'routing'
  | 'fixupTarget'
>;

/** What the project config says of the engine's rules (budgets, limits, gates, routing). */
export function configuredEngineOptions(config: ProjectConfig): ConfiguredEngineOptions {
  const fixupTarget = config.review.fixupTarget;
  return {
    retry: config.retry,
    park: { maxWaitMs: config.park.maxWaitSeconds * 1000, maxParks: config.park.maxParks },
    stallTimeoutMs: config.stallTimeoutMs,
    costBudget: config.cost,
    prices: config.prices,
    maxAttemptMs: config.maxAttemptSeconds * 1000,
    maxAttemptEvidenceBytes: config.evidence.maxAttemptBytes,
    ...(config.maxApplyQueue !== undefined ? { maxApplyQueue: config.maxApplyQueue } : {}),
    maxRepeatedCorrections: config.corrections.maxRepeats,
    // Project gates come only from the config a human wrote, never from a plan.
    projectGates: config.gates,
    routing: config.routing,
    ...(fixupTarget ? { fixupTarget } : {}),
  };
}
