import type { AddedLine } from './added-lines.js';

// The detector `tests: required` uses to turn stubs in a task's diff into review findings:
// these patterns are what it looks for, not unfinished code of this project.

/** Markers of code left unimplemented, in any language the task may touch. */
const STUB = [
  /\bthrow new Error\(\s*["'`](?:TODO|not implemented)/i,
  /\bnot implemented\b/i,
  /\braise NotImplementedError\b/,
  /\bpass\s+#\s*TODO\b/,
  /\b(?:todo|unimplemented)!\(/,
  /(?:\/\/|#|\/\*|--)\s*TODO\b/,
];

/** A stub found in a changed file. */
export interface StubFinding {
  file: string;
  line: number;
  text: string;
}

/**
 * The stub lines (`TODO` comments, `not implemented` throws, `pass  # TODO`) of one file: of
 * its whole text, or — what a task is judged on — of the lines its change added.
 */
export function findStubs(file: string, lines: string | readonly AddedLine[]): StubFinding[] {
  const numbered =
    typeof lines === 'string' ? lines.split('\n').map((text, i) => ({ line: i + 1, text })) : lines;
  return numbered
    .filter(({ text }) => STUB.some((re) => re.test(text)))
    .map(({ line, text }) => ({ file, line, text: text.trim() }));
}

/** Whether a workspace-relative path is a test file by the usual conventions. */
export function isTestFile(path: string): boolean {
  return (
    /(?:^|\/)(?:test|tests|__tests__|spec|specs)\//.test(path) ||
    /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path) ||
    /(?:^|\/)test_[^/]*\.py$|_test\.(?:py|go)$/.test(path)
  );
}
