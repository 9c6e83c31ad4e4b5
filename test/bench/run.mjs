#!/usr/bin/env node
// Runs the benchmarks, one after another, each printing its figures and its ratio against a
// baseline measured in the same run. Run from the repo root after `pnpm build`:
//   npx -y pnpm@10.34.9 --filter @switchyard/e2e bench            (all of them)
//   npx -y pnpm@10.34.9 --filter @switchyard/e2e bench dry-run    (only the named ones)
//   npx -y pnpm@10.34.9 --filter @switchyard/e2e bench dispatch -- --tasks 100   (flags after
//   `--` go to each benchmark run; see test/bench/README.md for each one's sizes)
// Names: catalog-windows, dry-run, classify, runner-overhead, dispatch, dispatch-store, reload-task, isolation, monitor, monitor-trial, sandbox. The goals each one
// checks are in the comment at the top of its file; none of them fails a build.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ALL = [
  'catalog-windows',
  'dry-run',
  'classify',
  'runner-overhead',
  'dispatch',
  'dispatch-store',
  'reload-task',
  'isolation',
  'monitor',
  'monitor-trial',
  'sandbox',
];
const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const wanted = dashes < 0 ? args : args.slice(0, dashes);
const flags = dashes < 0 ? [] : args.slice(dashes + 1);
const unknown = wanted.filter((name) => !ALL.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length > 0 ? wanted : ALL) {
  console.log(`\n=== ${name} ===`);
  // From the repo root, as every benchmark expects; Node is the pinned one running this script.
  const run = spawnSync(process.execPath, [join(here, `${name}.mjs`), ...flags], {
    cwd: join(here, '..', '..'),
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    failed += 1;
    console.error(`${name} exited with ${run.status ?? run.signal}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
