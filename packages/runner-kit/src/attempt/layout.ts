import { join } from 'node:path';

/**
 * Files of one attempt directory. The agent writes `stdout.raw`/`stderr.raw` itself (they are
 * its stdout/stderr file descriptors, opened O_APPEND, so it keeps writing when the
 * dispatcher dies); the dispatcher tails them into the other files.
 */
export const ATTEMPT_FILES = {
  /** Identity, contract snapshot, process identity and result (see `locatorSchema`). */
  locator: 'locator.json',
  /** Interleaved stdout+stderr chunks in the framing of `stream-log.ts`. */
  stream: 'stream.log',
  /** Readable transcript written through the agent's TranscriptPlugin. */
  normalized: 'normalized-output.log',
  /** One JSON line per dispatcher heartbeat with observed progress counters. */
  heartbeat: 'heartbeat.log',
  /** The agent's stdout, exactly as written. */
  stdoutRaw: 'stdout.raw',
  /** The agent's stderr, exactly as written. */
  stderrRaw: 'stderr.raw',
} as const;

export type AttemptFile = keyof typeof ATTEMPT_FILES;

/** Absolute paths of every attempt file under `dir`. */
export function attemptPaths(dir: string): Record<AttemptFile, string> {
  const out = {} as Record<AttemptFile, string>;
  for (const [key, name] of Object.entries(ATTEMPT_FILES))
    out[key as AttemptFile] = join(dir, name);
  return out;
}
