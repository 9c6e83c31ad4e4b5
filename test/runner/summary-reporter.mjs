// A vitest reporter that tallies every outcome of a run and writes it as JSON to the file named
// by SWITCHYARD_SUMMARY_FILE, for test/run-tests.mjs to print as the final summary line.
// Counted as failed: failed tests, tests that never finished (a crashed worker), tests skipped
// because a hook of their suite failed, a suite or file that failed without a failed test in it
// (an import error, a throwing beforeAll/afterAll), and every error vitest saw outside a test.
import { writeFileSync } from 'node:fs';

/** True when a suite or the module above `test` has errors of its own (a hook, the import). */
function underFailedHook(test) {
  for (let node = test.parent; node; node = node.type === 'module' ? undefined : node.parent) {
    if (node.errors().length > 0) return true;
  }
  return false;
}

/** Tallies one test module; returns { passed, failed, skipped }. */
export function tallyModule(module) {
  const tally = { passed: 0, failed: 0, skipped: 0 };
  const failedUnder = new Set();
  for (const test of module.children.allTests()) {
    const state = test.result().state;
    // A test meant to run (not .skip/.todo) that was skipped: its suite's hook failed.
    const hookSkipped = state === 'skipped' && test.options.mode === 'run' && underFailedHook(test);
    const failed = state === 'failed' || state === 'pending' || hookSkipped;
    if (failed) {
      tally.failed += 1;
      for (let node = test.parent; node; node = node.type === 'module' ? undefined : node.parent)
        failedUnder.add(node);
    } else if (state === 'passed') tally.passed += 1;
    else tally.skipped += 1;
  }
  // A suite or file with errors of its own (hooks, import) and no failed test below it.
  for (const node of [module, ...module.children.allSuites()]) {
    if (node.errors().length > 0 && !failedUnder.has(node)) tally.failed += 1;
  }
  // A file that never finished (its worker died before collecting tests) and counted nothing.
  const unfinished = module.state() === 'pending' || module.state() === 'queued';
  if ((unfinished || module.state() === 'failed') && tally.failed === 0) tally.failed += 1;
  return tally;
}

export default class SummaryReporter {
  onTestRunEnd(testModules, unhandledErrors, reason) {
    const total = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      const tally = tallyModule(module);
      total.passed += tally.passed;
      total.failed += tally.failed;
      total.skipped += tally.skipped;
    }
    total.failed += unhandledErrors.length;
    if (reason === 'failed' && total.failed === 0) total.failed = 1;
    const file = process.env.SWITCHYARD_SUMMARY_FILE;
    if (file) writeFileSync(file, JSON.stringify({ ...total, reason }));
  }
}
