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

/** The stub lines of one file's text (`TODO` comments, `not implemented` throws, `pass  # TODO`). */
export function findStubs(file: string, text: string): StubFinding[] {
  const found: StubFinding[] = [];
  text.split('\n').forEach((line, i) => {
    if (STUB.some((re) => re.test(line))) found.push({ file, line: i + 1, text: line.trim() });
  });
  return found;
}

/** Whether a workspace-relative path is a test file by the usual conventions. */
export function isTestFile(path: string): boolean {
  return (
    /(?:^|\/)(?:test|tests|__tests__|spec|specs)\//.test(path) ||
    /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path) ||
    /(?:^|\/)test_[^/]*\.py$|_test\.(?:py|go)$/.test(path)
  );
}
