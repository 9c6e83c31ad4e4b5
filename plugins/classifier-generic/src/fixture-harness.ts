import type { Classification, ClassifierPlugin } from '@switchyard/core';
import { classifyEvidence, collectEvidence } from '@switchyard/runner-kit';

/** The recorded shape of one real CLI run (see test/agent-contract/run-cli.mjs). */
export interface CapturedRun {
  agent: string;
  mode: 'text' | 'jsonl';
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** True when the capture cancelled the run on purpose (SIGTERM to its group). */
  cancelled?: boolean;
  /** The CLI's version, recorded in the evidence. */
  version?: string;
  stdout: string;
  stderr: string;
}

/**
 * Classifies a captured run as the dispatcher would: evidence collected with the classifiers'
 * retry-line hooks; a run the capture had to kill counts as ended by the retry-loop watchdog.
 */
export async function classifyCapture(
  run: CapturedRun,
  classifiers: ClassifierPlugin[],
  endedAt = new Date('2026-11-30T12:00:00Z'),
): Promise<Classification> {
  const hooks = classifiers.flatMap((c) => (c.isRetryLine ? [c.isRetryLine.bind(c)] : []));
  const evidence = collectEvidence({
    agent: run.agent,
    outputFormat: run.mode,
    stdout: run.stdout,
    stderr: run.stderr,
    exitCode: run.exitCode,
    signal: run.signal,
    endedBy: run.cancelled ? 'cancel' : run.timedOut ? 'retry-loop' : undefined,
    isRetryLine: (line) => hooks.some((h) => h(line)),
    ...(run.version === undefined ? {} : { agentVersion: run.version }),
  });
  return classifyEvidence(evidence, classifiers, { endedAt, timeZone: 'UTC' });
}
