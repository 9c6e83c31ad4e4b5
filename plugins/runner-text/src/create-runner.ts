import { defineRunner, type OutputFormat, type RunnerPlugin } from '@switchyard/core';
import type { HooksFactory } from './hooks.js';
import { reattachAttempt, startAttempt } from './run-attempt.js';

/** Builds a runner plugin on the shared attempt runner. */
export function createRunner(options: {
  name: string;
  version?: string;
  outputFormats: readonly OutputFormat[];
  nativeSession?: boolean;
  hooks?: HooksFactory;
}): RunnerPlugin {
  return defineRunner({
    meta: { name: options.name, ...(options.version ? { version: options.version } : {}) },
    outputFormats: options.outputFormats,
    ...(options.nativeSession ? { nativeSession: true } : {}),
    // the agent's stdin can be a file (RunnerSpec.stdinFile): a prompt too long for argv
    promptDelivery: { argv: true, stdin: true },
    // RunnerSpec.sandbox: the agent starts inside bubblewrap (see run-attempt.ts)
    sandbox: true,
    start: (spec) => startAttempt(spec, options.hooks),
    reattach: (locator, reattach) => reattachAttempt(locator, reattach, options.hooks),
  });
}
