import type { DefinitionOfDone } from '../task/types.js';
import type { CommandResult } from './types.js';

/** True when the command result satisfies the plan's assertion; else why not. */
export function judgeGate(
  done: DefinitionOfDone,
  result: CommandResult,
): { passed: boolean; why: string } {
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
  const passed = new RegExp(a.pattern).test(result.stdout);
  return {
    passed,
    why: passed ? `stdout matches /${a.pattern}/` : `stdout does not match /${a.pattern}/`,
  };
}
