/** How many tests a runner says it ran, read from its summary line(s). */
export interface TestSummary {
  runner: 'vitest' | 'jest' | 'node-test' | 'pytest' | 'go-test' | 'cargo-test';
  tests: number;
  /** The summary line(s) the count comes from, verbatim. */
  lines: string[];
}

// ANSI colour codes in runner output.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/**
 * Reads the test count from the summary lines of vitest, jest, `node --test`, pytest,
 * `go test` and `cargo test`; undefined when no summary is recognized. A runner that found
 * no test at all (`No test files found`, `no tests ran`, `[no test files]`) counts zero.
 */
export function readTestSummary(output: readonly string[]): TestSummary | undefined {
  const lines = output.map((l) => l.replace(ANSI, '').replace(/\r$/, ''));
  const hits = (re: RegExp) => lines.filter((l) => re.test(l));

  const vitest = hits(/^\s*Tests\s+.*\((\d+)\)\s*$/);
  if (vitest.length > 0) return sum('vitest', vitest, /\((\d+)\)\s*$/);
  if (hits(/No test files found/).length > 0)
    return { runner: 'vitest', tests: 0, lines: hits(/No test files found/) };

  const jest = hits(/^Tests:\s+.*\b(\d+) total/);
  if (jest.length > 0) return sum('jest', jest, /\b(\d+) total/);
  if (hits(/^No tests found/).length > 0)
    return { runner: 'jest', tests: 0, lines: hits(/^No tests found/) };

  const node = hits(/^\s*[ℹ#] tests (\d+)\s*$/);
  if (node.length > 0) return sum('node-test', node, /tests (\d+)/);

  const pytestEmpty = hits(/^=+ no tests ran\b/);
  if (pytestEmpty.length > 0) return { runner: 'pytest', tests: 0, lines: pytestEmpty };
  const pytest = hits(/^=+ .*\b(?:passed|failed|errors?|skipped|xfailed|xpassed)\b.* in [\d.]+s/);
  if (pytest.length > 0) {
    const line = pytest.at(-1)!;
    const tests = [...line.matchAll(/(\d+) (?:passed|failed|errors?|skipped|xfailed|xpassed)/g)]
      .map((m) => Number(m[1]))
      .reduce((a, b) => a + b, 0);
    return { runner: 'pytest', tests, lines: [line] };
  }

  const cargo = hits(/^test result: \w+\. \d+ passed; \d+ failed;/);
  if (cargo.length > 0) {
    const tests = cargo
      .map((l) => /(\d+) passed; (\d+) failed/.exec(l)!)
      .reduce((n, m) => n + Number(m[1]) + Number(m[2]), 0);
    return { runner: 'cargo-test', tests, lines: cargo };
  }

  const go = hits(/^(?:ok|FAIL|\?)\s+\S+(?:\s|$)/);
  if (go.length > 0) {
    const runs = hits(/^\s*--- (?:PASS|FAIL|SKIP):/).length;
    // Without -v, a package line that is not "no test files"/"no tests to run" ran at least one.
    const ran = go.filter((l) => !/\[no test files\]|\[no tests to run\]/.test(l)).length;
    return { runner: 'go-test', tests: runs > 0 ? runs : ran, lines: go };
  }
  return undefined;
}

function sum(runner: TestSummary['runner'], lines: string[], re: RegExp): TestSummary {
  // Watch modes and reruns print several summaries: the last one counts.
  const line = lines.at(-1)!;
  return { runner, tests: Number(re.exec(line)![1]), lines: [line] };
}
