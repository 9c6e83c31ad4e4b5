#!/usr/bin/env node
// Runs vitest and ends with the plain line `N passed, N failed, N skipped` that CI reads.
// `failed` counts everything vitest reports as a failure (see runner/summary-reporter.mjs),
// and is at least 1 whenever vitest exits non-zero, so the line never says `0 failed` for a
// failed run. Exit status: 0 only when vitest exited 0 and nothing failed, else vitest's (or 1).
// Runs the project in the current directory (or the one given with vitest's own `--root`) with
// this repository's vitest, so a scratch project can be run through it too.
// It runs one test file per core at a time (`--maxWorkers`, see below) unless the arguments
// or VITEST_MAX_WORKERS say otherwise.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoBin = join(here, '..', 'node_modules', '.bin');
const summaryFile = join(tmpdir(), `switchyard-vitest-${process.pid}.json`);
const given = process.argv.slice(2);
// vitest's default is one file at a time on two cores (cores - 1), and the projects' config files
// cannot raise it for the whole run (a file-based project keeps its own value). Most of a test
// file's time waits on the processes it spawns (one file at a time keeps about two thirds of a
// core busy), so one file per core fills the machine; more only add contention.
const workers =
  process.env.VITEST_MAX_WORKERS || given.some((a) => /^--max-?workers\b/i.test(a))
    ? []
    : [`--maxWorkers=${availableParallelism()}`];
const args = [
  'run',
  '--reporter=default',
  `--reporter=${join(here, 'runner', 'summary-reporter.mjs')}`,
  ...workers,
  ...given,
];
// Like `pnpm exec`: the repository's bin folder (vitest, the pinned node) comes first on PATH.
const env = {
  ...process.env,
  PATH: `${repoBin}${delimiter}${process.env.PATH ?? ''}`,
  SWITCHYARD_SUMMARY_FILE: summaryFile,
};
const child = spawn(join(repoBin, 'vitest'), args, { stdio: 'inherit', env });
const code = await new Promise((resolve) => {
  child.on('error', () => resolve(1));
  child.on('close', (c, s) => resolve(c ?? (s ? 1 : 0)));
});

let summary = { passed: 0, failed: 0, skipped: 0 };
try {
  summary = { ...summary, ...JSON.parse(await readFile(summaryFile, 'utf8')) };
} catch {
  // vitest ended before reporting (a crash or a bad config): the run failed.
}
await rm(summaryFile, { force: true });
if (code !== 0 && summary.failed === 0) summary.failed = 1;
console.log(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`);
process.exit(code === 0 && summary.failed === 0 ? 0 : code || 1);
