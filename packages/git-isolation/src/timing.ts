/**
 * Where an apply spends its time, by span (`inspect`, `wait`, `journal`, `commit`, `replay`,
 * `advance`, `check`, `finish`): a caller that passes `onTiming` to `openGitIsolation` (the
 * isolation bench) gets each span's wall time in ms as it ends. A no-op otherwise.
 */
export type TimingSink = (span: string, ms: number) => void;

/** Runs `work`, reporting its wall time to `sink` under `span`. */
export async function timed<T>(
  sink: TimingSink | undefined,
  span: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!sink) return work();
  const start = performance.now();
  try {
    return await work();
  } finally {
    sink(span, performance.now() - start);
  }
}
