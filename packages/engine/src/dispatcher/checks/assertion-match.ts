import { Worker } from 'node:worker_threads';

/** How long a `stdout matches /re/` assertion may take before it counts as failed. */
export const ASSERTION_TIME_LIMIT_MS = 5_000;

// Runs in the worker: the one regular expression test, nothing else.
const MATCH_SOURCE = `const { parentPort, workerData } = require('node:worker_threads');
parentPort.postMessage(new RegExp(workerData.pattern).test(workerData.text));`;

/** How a bounded match ended. */
export type BoundedMatch = { matched: boolean } | { timedOut: true } | { error: string };

/**
 * Tests a regular expression from a plan or the project config against a command's output in
 * a worker thread, ended after `timeoutMs`. The dispatcher's event loop never runs it: a
 * backtracking pattern (`/^(a+)+$/` on 31 bytes took over 40 s) would freeze every other
 * task, the monitor and Ctrl-C. JavaScript semantics are kept (a linear-time engine would
 * refuse back-references and look-behind that plans already use); the time limit bounds the
 * CPU instead.
 */
export function matchWithin(
  pattern: string,
  text: string,
  timeoutMs = ASSERTION_TIME_LIMIT_MS,
): Promise<BoundedMatch> {
  return new Promise((resolve) => {
    const worker = new Worker(MATCH_SOURCE, {
      eval: true,
      workerData: { pattern, text },
      // a pattern gets a small heap of its own, not the dispatcher's
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (result: BoundedMatch) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => settle({ timedOut: true }), timeoutMs);
    worker.once('message', (matched: boolean) => settle({ matched }));
    worker.once('error', (error) => settle({ error: error.message }));
    worker.once('exit', () => settle({ error: 'the matching thread ended without an answer' }));
  });
}
