import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addedLinesBetween, addedLinesOfPatch } from './added-lines.js';
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

  it('reads no stub in its own source (a change to it is judged like any other)', () => {
    const own = readFileSync(new URL('./stub-detector.ts', import.meta.url), 'utf8');
    expect(findStubs('stub-detector.ts', own)).toEqual([]);
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

describe('the lines a change added', () => {
  const patch = [
    'diff --git a/pkg/a.ts b/pkg/a.ts',
    'index f076423..d93741f 100644',
    '--- a/pkg/a.ts',
    '+++ b/pkg/a.ts',
    '@@ -1,3 +1,4 @@',
    ' one',
    ' two // TODO a human wrote this years ago',
    '+new // TODO left by the task',
    ' three',
    'diff --git a/pkg/b.bin b/pkg/b.bin',
    'index 88768ef..f68ed80 100644',
    'GIT binary patch',
    'literal 6',
    'NcmZQzO3KVL0ssTy0d4>Q',
    '',
    'literal 5',
    'McmZQzOv=my00M6TI{*Lx',
    '',
    'diff --git a/pkg/c.test.ts b/pkg/c.test.ts',
    'new file mode 100644',
    'index 0000000..840ad9e',
    '--- /dev/null',
    '+++ b/pkg/c.test.ts',
    '@@ -0,0 +1,2 @@',
    '+fresh',
    '+// TODO new file',
    'diff --git a/pkg/gone.ts b/pkg/gone.ts',
    'deleted file mode 100644',
    'index 587be6b..0000000',
    '--- a/pkg/gone.ts',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-// TODO',
    'diff --git a/other/x.ts b/other/x.ts',
    '--- a/other/x.ts',
    '+++ b/other/x.ts',
    '@@ -1 +1 @@',
    '-x',
    '+y // TODO',
    '',
  ].join('\n');

  it('reads a git diff: added lines with their new line numbers, workspace-relative', () => {
    const files = addedLinesOfPatch(patch, 'pkg');
    expect(files.map((f) => f.path)).toEqual(['a.ts', 'b.bin', 'c.test.ts']);
    expect(files[0]?.added).toEqual([{ line: 3, text: 'new // TODO left by the task' }]);
    expect(files[1]?.added).toEqual([]);
    expect(files[2]?.added.map((l) => l.line)).toEqual([1, 2]);
    // Only the stubs the change added count: not the human's old TODO on line 2.
    expect(files.flatMap((f) => findStubs(f.path, f.added))).toEqual([
      { file: 'a.ts', line: 3, text: 'new // TODO left by the task' },
      { file: 'c.test.ts', line: 2, text: '// TODO new file' },
    ]);
    expect(addedLinesOfPatch(patch).map((f) => f.path)).toContain('other/x.ts');
  });

  it('compares a file with its baseline when there is no git', () => {
    const before = 'one\n// TODO old\nthree\n';
    const after = 'one\n// TODO old\nnot implemented yet\nthree\n';
    expect(addedLinesBetween(before, after)).toEqual([{ line: 3, text: 'not implemented yet' }]);
    expect(addedLinesBetween(undefined, 'a\nb')).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
    ]);
    expect(addedLinesBetween(before, before)).toEqual([]);
  });
});
