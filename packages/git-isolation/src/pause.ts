/**
 * Test hook of the crash trials: when `SWITCHYARD_APPLY_PAUSE_AT` names this point, the
 * process says so on stderr (`switchyard-apply-paused <point>`) and waits forever, so a
 * trial can SIGKILL it exactly there. A no-op in every other case.
 */
export async function pausePoint(point: string): Promise<void> {
  if (process.env.SWITCHYARD_APPLY_PAUSE_AT !== point) return;
  process.stderr.write(`switchyard-apply-paused ${point}\n`);
  await new Promise(() => setInterval(() => undefined, 60_000));
}
