import type { DefinitionOfDone } from '@switchyard/core';
import type { CommandResult } from '../types.js';
import { ASSERTION_TIME_LIMIT_MS, matchWithin } from './assertion-match.js';

/** True when the command result satisfies the plan's assertion; else why not. A regular
 * expression runs off the event loop, bounded by `matchTimeoutMs` (see assertion-match.ts). */
export async function judgeGate(
  done: DefinitionOfDone,
  result: CommandResult,
  matchTimeoutMs = ASSERTION_TIME_LIMIT_MS,
): Promise<{ passed: boolean; why: string }> {
  if (result.spawnError)
    return { passed: false, why: `the command could not start: ${result.spawnError}` };
  if (result.timedOut) return { passed: false, why: 'the command timed out' };
  const a = done.assertion;
  if (a.kind === 'exit-code') {
    const passed = result.exitCode === a.code;
    const got =
      result.exitCode === null ? `signal ${result.signal}` : `exit code ${result.exitCode}`;
    return {
      passed,
      why: passed ? `exit code ${a.code}` : `expected exit code ${a.code}, got ${got}`,
    };
  }
  if (a.kind === 'stdout-contains') {
    const passed = result.stdout.includes(a.text);
    return {
      passed,
      why: passed ? `stdout contains "${a.text}"` : `stdout does not contain "${a.text}"`,
    };
  }
  const match = await matchWithin(a.pattern, result.stdout, matchTimeoutMs);
  if ('timedOut' in match)
    return {
      passed: false,
      why: `/${a.pattern}/ ran longer than ${matchTimeoutMs / 1000} s on ${result.stdout.length} characters of output and was stopped; write a pattern without nested repetition such as (a+)+`,
    };
  if ('error' in match)
    return { passed: false, why: `/${a.pattern}/ could not be tested: ${match.error}` };
  const passed = match.matched;
  return {
    passed,
    why: passed ? `stdout matches /${a.pattern}/` : `stdout does not match /${a.pattern}/`,
  };
}
