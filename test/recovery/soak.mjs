#!/usr/bin/env node
// Crash soak: the SIGKILL trials of crash-trials-<part>.test.ts, many times (not in the default test
// run). `pnpm --filter @switchyard/e2e soak [trials] [seed]`, after `pnpm build`. Prints per
// trial kills, exits and repeated agent runs, and a summary line; exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [trials = process.env.SWITCHYARD_CRASH_TRIALS ?? '100', seed] = process.argv.slice(2);
const env = { ...process.env, SWITCHYARD_CRASH_TRIALS: trials };
if (seed) env.SWITCHYARD_CRASH_SEED = seed;
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', 'recovery/crash-trials-'], {
  cwd: root,
  env,
  stdio: 'inherit',
});
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
