#!/usr/bin/env node
// Runs the test suite (test/run-tests.mjs, with the arguments given) while `stress-ng --cpu N`
// keeps the machine's cores busy beside it: the proof that no test depends on how fast the
// machine is. N is `--cpu N` (before the vitest arguments) or, by default, twice the cores this
// process may use, so the suite gets about a third of the CPU. stress-ng runs in its own process
// group and is ended with it however the run ends (exit, Ctrl-C, SIGTERM).
//
//   node test/run-loaded.mjs                    # the whole suite, loaded
//   node test/run-loaded.mjs --cpu 8 test/dispatcher/
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let args = process.argv.slice(2);
let cpus = availableParallelism() * 2;
if (args[0] === '--cpu') {
  cpus = Number(args[1]);
  if (!Number.isInteger(cpus) || cpus < 1) {
    console.error(`--cpu needs a whole number of workers of at least 1, got ${args[1]}`);
    process.exit(2);
  }
  args = args.slice(2);
}
if (spawnSync('stress-ng', ['--version'], { stdio: 'ignore' }).error) {
  console.error('stress-ng is not installed: apt-get install -y stress-ng (Debian/Ubuntu)');
  process.exit(2);
}

const stress = spawn('stress-ng', ['--cpu', String(cpus), '--quiet'], {
  detached: true,
  stdio: 'ignore',
});
const stopStress = () => {
  try {
    process.kill(-stress.pid, 'SIGKILL');
  } catch {
    // already gone
  }
};
process.on('exit', stopStress);
console.log(`load: stress-ng --cpu ${cpus} (pid ${stress.pid}) beside the suite`);

const suite = spawn(process.execPath, [join(here, 'run-tests.mjs'), ...args], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    suite.kill(signal);
  });
const started = performance.now();
const code = await new Promise((resolve) => {
  suite.on('error', () => resolve(1));
  suite.on('close', (c, s) => resolve(c ?? (s ? 1 : 0)));
});
stopStress();
console.log(
  `loaded run (stress-ng --cpu ${cpus}): ${Math.round((performance.now() - started) / 1000)} s, exit ${code}`,
);
process.exit(code);
