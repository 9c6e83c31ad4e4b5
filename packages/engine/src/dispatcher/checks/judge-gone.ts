import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { AttemptRecord, Classification } from '@switchyard/core';
import {
  attemptPaths,
  classifyEvidence,
  collectEvidence,
  readLocator,
} from '@switchyard/runner-kit';
import { judgeUnobservedExit } from '../agent/unobserved-exit.js';
import { classifyContextOf } from '../time-zone.js';
import type { DispatchContext } from '../types.js';

const TAIL_BYTES = 256 * 1024;

type Locator = Awaited<ReturnType<typeof readLocator>>;
/** What judging a gone attempt needs of its locator (all of it, when it was written). */
type GoneFacts = Pick<
  Locator,
  'agent' | 'endedAt' | 'exitCode' | 'signal' | 'endedBy' | 'sessionId' | 'exitObserved'
> & {
  runtime: Pick<Locator['runtime'], 'outputFormat'>;
  process: Pick<Locator['process'], 'pid'>;
};

function readTail(file: string): Buffer {
  try {
    const size = statSync(file).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buffer, 0, length, size - length);
    } finally {
      closeSync(fd);
    }
    return buffer;
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * The verdict for an attempt whose process is gone and was not watched to its end (the
 * dispatcher died). It is judged by its evidence files through the same classifiers as any
 * attempt: when its runner had recorded the exit in `locator.json`, with that exit status;
 * otherwise (the agent ended while no dispatcher ran) as an unobserved exit — a provider
 * fault in its output is that fault (a quota fault still fails over), a successful final
 * event is success (the work is not run again), anything else is `process-termination`.
 */
export async function judgeGoneAttempt(
  ctx: DispatchContext,
  record: AttemptRecord,
): Promise<Classification> {
  const paths = attemptPaths(record.attemptDir);
  let locator: GoneFacts;
  try {
    locator = await readLocator(record.attemptDir);
  } catch {
    // The dispatcher died between the spawn and the locator: the agent may still have run
    // (and ended) with its output in stdout.raw. Judge that output as the target's agent.
    const target = ctx.catalog.targets[record.target];
    if (target && readTail(paths.stdoutRaw).length + readTail(paths.stderrRaw).length > 0) {
      locator = {
        agent: target.agent,
        runtime: { outputFormat: target.runtime.output_format },
        process: { pid: record.pid ?? 0 },
      };
    } else {
      return {
        class: 'process-termination',
        confidence: 'certain',
        evidence: [
          `attempt ${record.id} left no locator.json: its process never started or died at once`,
        ],
        classifier: 'dispatcher',
      };
    }
  }
  // An exit the runner saw only as the process vanishing (a re-attached attempt whose verdict
  // a later crash lost) has no status to judge by: it is judged as unobserved again, so a
  // second judgement of one attempt gives the first one's verdict.
  const observed = locator.endedAt !== undefined && locator.exitObserved !== false;
  const evidence = collectEvidence({
    agent: locator.agent,
    outputFormat: locator.runtime.outputFormat,
    stdout: readTail(paths.stdoutRaw),
    stderr: readTail(paths.stderrRaw),
    exitCode: observed ? (locator.exitCode ?? null) : null,
    signal: observed ? (locator.signal ?? null) : null,
    ...(locator.endedBy ? { endedBy: locator.endedBy } : {}),
  });
  if (locator.sessionId) record.sessionId = locator.sessionId;
  record.exitCode = observed ? (locator.exitCode ?? null) : null;
  record.signal = observed ? (locator.signal ?? null) : null;
  const classified = await classifyEvidence(
    evidence,
    ctx.options.plugins.classifiersFor(locator.agent),
    classifyContextOf(ctx, observed ? new Date(locator.endedAt!) : lastWrite(paths, ctx.now())),
  );
  if (observed) return classified;
  const verdict = judgeUnobservedExit(
    { exitObserved: false, endedBy: locator.endedBy, signal: null, evidence },
    classified,
  );
  if (verdict.class !== 'process-termination' || verdict.classifier !== 'dispatcher')
    return verdict;
  return {
    ...verdict,
    evidence: [
      `attempt ${record.id} (pid ${locator.process.pid}) ended while no dispatcher watched it, with no successful final event`,
    ],
  };
}

/** When the agent last wrote output: the end time of an attempt nobody saw end. */
export function lastWrite(paths: ReturnType<typeof attemptPaths>, fallback: Date): Date {
  let latest = 0;
  for (const file of [paths.stdoutRaw, paths.stderrRaw]) {
    try {
      latest = Math.max(latest, statSync(file).mtimeMs);
    } catch {
      // not written
    }
  }
  return latest > 0 ? new Date(latest) : fallback;
}
