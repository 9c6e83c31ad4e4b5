import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { attemptPaths } from '../attempt/layout.js';
import { readLocator } from '../attempt/locator.js';
import { classifyEvidence } from '../evidence/classify-evidence.js';
import { collectEvidence } from '../evidence/evidence-collector.js';
import type { Classification } from '../plugins/types.js';
import type { AttemptRecord } from '../state/state-schema.js';
import type { DispatchContext } from './context.js';

const TAIL_BYTES = 256 * 1024;

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
 * dispatcher died). When its runner had already recorded the exit in `locator.json`, the
 * attempt is classified from its evidence files like any other; otherwise nobody saw how it
 * ended and it is `process-termination`.
 */
export async function judgeGoneAttempt(
  ctx: DispatchContext,
  record: AttemptRecord,
): Promise<Classification> {
  let locator: Awaited<ReturnType<typeof readLocator>>;
  try {
    locator = await readLocator(record.attemptDir);
  } catch {
    return {
      class: 'process-termination',
      confidence: 'certain',
      evidence: [
        `attempt ${record.id} left no locator.json: its process never started or died at once`,
      ],
      classifier: 'dispatcher',
    };
  }
  if (locator.endedAt === undefined) {
    return {
      class: 'process-termination',
      confidence: 'certain',
      evidence: [
        `attempt ${record.id} (pid ${locator.process.pid}) ended while no dispatcher watched it; exit status unknown`,
      ],
      classifier: 'dispatcher',
    };
  }
  const paths = attemptPaths(record.attemptDir);
  const evidence = collectEvidence({
    agent: locator.agent,
    outputFormat: locator.runtime.outputFormat,
    stdout: readTail(paths.stdoutRaw),
    stderr: readTail(paths.stderrRaw),
    exitCode: locator.exitCode ?? null,
    signal: locator.signal ?? null,
    ...(locator.endedBy ? { endedBy: locator.endedBy } : {}),
  });
  if (locator.sessionId) record.sessionId = locator.sessionId;
  record.exitCode = locator.exitCode ?? null;
  record.signal = locator.signal ?? null;
  return classifyEvidence(evidence, ctx.options.plugins.classifiersFor(locator.agent), {
    endedAt: new Date(locator.endedAt),
    timeZone: ctx.options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
}
