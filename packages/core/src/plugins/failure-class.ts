/**
 * Failure classes: what a finished attempt's terminal evidence says went wrong.
 * The first five are provider faults and may advance a stage to the next unused catalog
 * candidate; the others never change the selected target.
 */
export const FAILOVER_CLASSES = [
  'provider-quota',
  'context-limit',
  'model-unavailable',
  'provider-stream-disconnect',
  'provider-connection',
] as const;

export const NON_FAILOVER_CLASSES = [
  'generic-error',
  'process-termination',
  'work-log-failure',
  'review-control-failure',
] as const;

export const FAILURE_CLASSES = [...FAILOVER_CLASSES, ...NON_FAILOVER_CLASSES] as const;

export type FailoverClass = (typeof FAILOVER_CLASSES)[number];
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/**
 * Why a failure happened, when a classifier can tell more than its class. `authentication`
 * (HTTP 401/403, invalid API key) is a `generic-error` that retrying will not fix: the stage
 * blocks after at most one retry. `prompt-too-long`: the attempt was refused before spawning
 * (SY_PROMPT_TOO_LONG); the same prompt would be refused again, so the stage blocks at once.
 */
export const FAILURE_REASONS = ['authentication', 'prompt-too-long'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** A classifier's verdict may also be `success` (the attempt did its job). */
export type AttemptClass = FailureClass | 'success';

/** True when the class may move a stage to the next unused catalog candidate. */
export function isFailoverClass(value: string): value is FailoverClass {
  return (FAILOVER_CLASSES as readonly string[]).includes(value);
}
