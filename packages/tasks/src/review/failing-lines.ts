/** Lines that name a failure in the output of a build or test runner. */
const FAILING_LINE = [
  /\bFAIL(?:ED|URE|ING)?\b/,
  /\b[1-9]\d* (?:failed|failing|failures?|errors?)\b/i,
  /^\s*(?:✗|×|✕|✖)/,
  /^\s*not ok\b/,
  /^\s*---\s*FAIL\b/,
  /\b(?:Assertion)?Error\b[:\]]/,
  /\bpanicked at\b/,
  /^E\s{2,}\S/,
  /\berror(?:\[\w+\])?:/,
  /\bexpected\b.*\b(?:received|got|to (?:be|equal))\b/i,
];

/** At most this many failing lines are quoted (the full output stays in its file). */
export const MAX_FAILING_LINES = 60;

/**
 * The lines of a runner's output that say what failed (vitest/jest `FAIL`/`×`, TAP `not ok`,
 * go `--- FAIL`, pytest `E   …`, cargo `panicked at`, compiler `error:`), verbatim and in
 * order; empty when none does. A correction quotes these, never a paraphrase.
 */
export function failingLines(output: readonly string[]): string[] {
  const picked = output.filter((line) => FAILING_LINE.some((re) => re.test(line)));
  return picked.slice(0, MAX_FAILING_LINES);
}
