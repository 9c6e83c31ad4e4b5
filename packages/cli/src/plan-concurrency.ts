/**
 * The limit a run of a YAML plan uses: the run's max parallel (`--max-parallel`, else config
 * `maxParallel`, else 3) capped by the plan's `execution.max_concurrency`. Either may be 0
 * (unlimited); a plan never raises the run's limit. Without `max_concurrency` the run's limit
 * applies unchanged.
 */
export function cappedParallel(runLimit: number, planLimit: number | undefined): number {
  if (planLimit === undefined || planLimit === 0) return runLimit;
  if (runLimit === 0) return planLimit;
  return Math.min(runLimit, planLimit);
}
