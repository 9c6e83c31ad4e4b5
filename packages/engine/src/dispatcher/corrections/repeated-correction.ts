import { createHash } from 'node:crypto';
import type { Correction, TaskState } from '@switchyard/core';

/** The same correction this many times in a row on one stage blocks the task (config default). */
export const DEFAULT_MAX_REPEATED_CORRECTIONS = 3;

// What changes between two runs of the same failing command without meaning anything:
// colours, clock times, timestamps and durations ("Duration 1.32s", "in 840ms").
const NOISE: readonly [RegExp, string][] = [
  [/\u001b\[[0-9;?]*[A-Za-z]/g, ''],
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/g, '<time>'],
  [/\b\d{1,2}:\d\d:\d\d(?:\.\d+)?\b/g, '<time>'],
  [/\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds|m|min)\b/g, '<duration>'],
  // The file that keeps a check's whole output: a new one per run (an apply's source check
  // names it in its reason).
  [/^output: .*$/gm, 'output: <file>'],
];

/**
 * What makes two corrections "the same": their source, reason and evidence (for a gate, its
 * output tail) without run-to-run noise, hashed. The full output file's path is left out: it
 * names a new file every time.
 */
export function correctionFingerprint(correction: Correction): string {
  const normalize = (text: string) => NOISE.reduce((t, [re, to]) => t.replace(re, to), text);
  const hash = createHash('sha256');
  hash.update(`${correction.source}\0${normalize(correction.summary)}`);
  for (const line of correction.evidence) hash.update(`\0${normalize(line)}`);
  return hash.digest('hex').slice(0, 32);
}

/**
 * Records a correction of `stage` and returns how many times in a row that stage has now
 * given the same one. A run of failures starts again after any success of the stage (its
 * failure counter was 0), so only an unbroken repetition counts. The caller persists.
 */
export function countRepeat(state: TaskState, stage: string, correction: Correction): number {
  const fingerprint = correctionFingerprint(correction);
  const previous = state.repeats?.[stage];
  const unbroken = (state.failures as Record<string, number>)[stage] ?? 0;
  const count = unbroken > 0 && previous?.fingerprint === fingerprint ? previous.count + 1 : 1;
  state.repeats = { ...state.repeats, [stage]: { fingerprint, count } };
  return count;
}
