import { describe, expect, it } from 'vitest';
import { findStubs, isTestFile } from './stub-detector.js';
import { readTestSummary } from './test-summary.js';

const lines = (text: string) => text.split('\n');

describe('readTestSummary', () => {
  it('reads the test count of each runner from its summary lines', () => {
    const cases: Array<[string, string, number]> = [
      ['vitest', ' Test Files  2 passed (2)\n      Tests  1 failed | 6 passed (7)\n', 7],
      [
        'vitest',
        '\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[32m3 passed\u001b[39m\u001b[22m\u001b[90m (3)\u001b[39m',
        3,
      ],
      ['vitest', 'No test files found, exiting with code 1\n', 0],
      ['jest', 'Test Suites: 1 passed, 1 total\nTests:       2 skipped, 4 passed, 6 total\n', 6],
      ['jest', 'No tests found, exiting with code 1', 0],
      ['node-test', 'ℹ tests 5\nℹ suites 1\nℹ pass 5\nℹ fail 0\n', 5],
      ['node-test', '# tests 0\n# pass 0\n', 0],
      ['pytest', '============ 3 passed, 1 skipped, 1 failed in 0.12s ============', 5],
      ['pytest', '============ no tests ran in 0.01s ============', 0],
      [
        'go-test',
        '=== RUN   TestSum\n--- PASS: TestSum (0.00s)\nPASS\nok  \texample.com/m\t0.002s',
        1,
      ],
      ['go-test', '?   \texample.com/m\t[no test files]', 0],
      [
        'cargo-test',
        'test result: ok. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\ntest result: ok. 0 passed; 0 failed; 0 ignored',
        4,
      ],
    ];
    for (const [runner, output, tests] of cases)
      expect(readTestSummary(lines(output)), output).toMatchObject({ runner, tests });
    expect(readTestSummary(['build ok', 'done'])).toBeUndefined();
  });
});

describe('stubs and test files', () => {
  it('finds stub markers with their lines', () => {
    const text = [
      'export function sum(a, b) {',
      '  throw new Error("TODO");',
      '}',
      'def f():',
      '    pass  # TODO',
      '// TODO: handle empty input',
      'const todoList = [];',
      'fn g() { unimplemented!() }',
    ].join('\n');
    expect(findStubs('a.ts', text).map((s) => s.line)).toEqual([2, 5, 6, 8]);
  });

  it('knows test files by the usual conventions', () => {
    for (const p of [
      'src/a.test.ts',
      'test/x.js',
      'pkg/__tests__/y.tsx',
      'm/sum_test.go',
      'tests/test_a.py',
      'b.spec.mjs',
    ])
      expect(isTestFile(p), p).toBe(true);
    for (const p of ['src/a.ts', 'src/testing.ts', 'contest/a.ts', 'latest.py'])
      expect(isTestFile(p), p).toBe(false);
  });
});
