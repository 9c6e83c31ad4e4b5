// Seeded fuzzing of every parser of user and agent input, in-process: the catalog loader, the
// PLAN.md parser, the YAML plan loader (with rendering and materialization) and config
// loading. Each campaign runs in a worker thread so that every input is timed from outside: a
// parser that takes longer than the bound on one input is a hang, ended and reported. Any
// uncoded error or unlocated problem is a crash (see targets.ts), shrunk by fast-check.
//
// Deterministic by default (a fixed seed). Longer or different runs:
//   SWITCHYARD_FUZZ_SCALE=20 SWITCHYARD_FUZZ_SEED=7 node test/run-tests.mjs test/fuzz/
// A crash or hang writes its input to test-artifacts/fuzz/; once fixed, keep it in
// test/fixtures/fuzz/crashers/ (crashers.test.ts replays every file there).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { type FuzzKind, REPO } from './corpus.ts';
import type { FuzzJob, FuzzMessage, FuzzReport } from './fuzz-worker.ts';

const SEED = Number(process.env.SWITCHYARD_FUZZ_SEED ?? 3109);
const SCALE = Number(process.env.SWITCHYARD_FUZZ_SCALE ?? 1);
/** One input may take this long (a parse takes milliseconds; the margin is for a loaded machine). */
const INPUT_BOUND_MS = Number(process.env.SWITCHYARD_FUZZ_INPUT_MS ?? 20_000);
const RUNS: Record<FuzzKind, number> = {
  catalogs: 1000,
  plans: 1000,
  yamlPlans: 600,
  configs: 300,
};
const ARTIFACTS = join(REPO, 'test-artifacts', 'fuzz');

interface CampaignResult {
  report?: FuzzReport;
  hang?: { input: unknown; ms: number };
  ms: number;
}

/** Runs one campaign in a worker; ends it when one input runs past the bound. */
function campaign(kind: FuzzKind): Promise<CampaignResult> {
  const job: FuzzJob = { kind, seed: SEED, runs: Math.round(RUNS[kind] * SCALE) };
  const started = performance.now();
  // The stack of the command's main thread (about 1 MB), not a worker's default 4 MB: a
  // recursion that overflows only there must be found here.
  const worker = new Worker(new URL('./fuzz-worker.ts', import.meta.url), {
    workerData: job,
    resourceLimits: { stackSizeMb: 1 },
  });
  let current: { input: unknown; at: number } | undefined;
  return new Promise((resolve, reject) => {
    const watch = setInterval(() => {
      if (!current || performance.now() - current.at < INPUT_BOUND_MS) return;
      clearInterval(watch);
      const hang = { input: current.input, ms: Math.round(performance.now() - current.at) };
      void worker.terminate().then(() => resolve({ hang, ms: performance.now() - started }));
    }, 250);
    worker.on('message', (message: FuzzMessage) => {
      if (message.type === 'start') current = { input: message.input, at: performance.now() };
      else if (message.type === 'end') current = undefined;
      else {
        clearInterval(watch);
        resolve({ report: message.report, ms: performance.now() - started });
      }
    });
    worker.on('error', (error) => {
      clearInterval(watch);
      reject(error);
    });
  });
}

function keep(kind: FuzzKind, what: string, input: unknown): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${kind}-${what}-seed${SEED}.json`);
  writeFileSync(file, `${JSON.stringify(input, null, 2)}\n`);
  return file;
}

describe(`fuzz: the parsers in-process (seed ${SEED}, scale ${SCALE})`, {
  timeout: 600_000 * SCALE,
}, () => {
  for (const kind of Object.keys(RUNS) as FuzzKind[])
    it(`${kind}: ${Math.round(RUNS[kind] * SCALE)} inputs, no crash, no hang`, async () => {
      const result = await campaign(kind);
      if (result.hang)
        expect.fail(
          `hang: one input ran ${result.hang.ms} ms (bound ${INPUT_BOUND_MS} ms); kept in ${keep(kind, 'hang', result.hang.input)}`,
        );
      const report = result.report as FuzzReport;
      const codes = Object.entries(report.codes)
        .map(([code, n]) => `${code} ${n}`)
        .join(', ');
      const slowest = keep(kind, 'slowest', report.slowest.input);
      process.stdout.write(
        `fuzz ${kind}: ${report.runs} inputs in ${(result.ms / 1000).toFixed(1)} s (${report.cpuSeconds.toFixed(1)} s CPU; slowest ${report.slowest.ms} ms, kept in ${slowest}), ${report.accepted} accepted; refused: ${codes}\n`,
      );
      if (report.crash)
        expect.fail(
          `crash (${report.crash.replay}): ${report.crash.error}\nkept in ${keep(kind, 'crash', report.crash.input)}`,
        );
      expect(report.runs).toBe(Math.round(RUNS[kind] * SCALE));
      // The corpus and generators reach past the first syntax check: some inputs are valid.
      expect(report.accepted).toBeGreaterThan(0);
    });
});
