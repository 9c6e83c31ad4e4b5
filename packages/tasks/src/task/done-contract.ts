import type { DefinitionOfDone, DoneAssertion, Problem } from '@switchyard/core';

/**
 * Commands come from humans, not agents: the Definition of Done of a task is the one of its
 * `PLAN.md`. A follow-up plan (`PLAN-2.md`…, written by a review agent) may omit the section or
 * repeat it unchanged; one that changes or adds the command or its assertion would let an
 * agent choose what the gate executes, so it is refused.
 */
export function followUpDoneProblem(
  original: DefinitionOfDone | undefined,
  followUp: DefinitionOfDone | undefined,
  file: string,
): Problem | undefined {
  if (!followUp) return undefined;
  if (original && sameArgv(original.argv, followUp.argv) && sameAssertion(original, followUp))
    return undefined;
  const message = original
    ? `the Definition of Done differs from PLAN.md's (\`${followUp.command}\` instead of \`${original.command}\`): a follow-up plan keeps the original command and assertion`
    : `the Definition of Done adds a command (\`${followUp.command}\`) that PLAN.md does not have: a follow-up plan may not add one`;
  return {
    code: 'SY_PLAN_INVALID',
    message,
    file,
    line: followUp.line,
    hint: 'remove the Definition of Done section from the follow-up plan; only a person changes the command, in PLAN.md',
    severity: 'error',
  };
}

function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((arg, i) => arg === b[i]);
}

function sameAssertion(a: { assertion: DoneAssertion }, b: { assertion: DoneAssertion }): boolean {
  return JSON.stringify(a.assertion) === JSON.stringify(b.assertion);
}
