#!/usr/bin/env node
// Runs every vitest project and ends with the plain line `N passed, N failed` that CI reads.
// Exit status: vitest's own (non-zero when any test failed or could not run).
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const report = join(tmpdir(), `switchyard-vitest-${process.pid}.json`);
const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
];
const child = spawn('pnpm', ['exec', ...args], { stdio: 'inherit' });
const code = await new Promise((resolve) => child.on('close', (c, s) => resolve(c ?? (s ? 1 : 0))));

let passed = 0;
let failed = 0;
try {
  const json = JSON.parse(await readFile(report, 'utf8'));
  passed = json.numPassedTests ?? 0;
  failed = json.numFailedTests ?? 0;
  // A file that fails to load has no test results; count it as a failure so it is seen.
  for (const file of json.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
  }
} catch {
  failed += 1;
}
await rm(report, { force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : code || 1);
