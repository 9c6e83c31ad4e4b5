import type { AddedLine } from './added-lines.js';

// The detector `tests: required` uses to turn stubs in a task's diff into review findings:
// these patterns are what it looks for, not unfinished code of this project.

// The marker words are put together here rather than written out: this file is judged by this
// detector too when switchyard runs on its own repository, and a change to it would otherwise
// read as a change that adds stubs.
const LATER = ['TO', 'DO'].join('');
const UNWRITTEN = ['not', 'implemented'].join(' ');

/** Markers of code left unimplemented, in any language the task may touch. */
const STUB = [
  new RegExp(String.raw`\bthrow new Error\(\s*["'${'`'}](?:${LATER}|${UNWRITTEN})`, 'i'),
  new RegExp(String.raw`\b${UNWRITTEN}\b`, 'i'),
  /\braise NotImplementedError\b/,
  new RegExp(String.raw`\bpass\s+#\s*${LATER}\b`),
  new RegExp(String.raw`\b(?:${LATER.toLowerCase()}|unimplemented)!\(`),
  new RegExp(String.raw`(?:\/\/|#|\/\*|--)\s*${LATER}\b`),
];

/** A stub found in a changed file. */
export interface StubFinding {
  file: string;
  line: number;
  text: string;
}

/**
 * The stub lines of one file (a marker comment, a throw or raise of unwritten code, a Python
 * `pass` with a marker): of its whole text, or — what a task is judged on — of the lines its
 * change added.
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
