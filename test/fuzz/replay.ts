// Replays kept fuzz inputs through their parser and prints what it made of each:
//   node test/fuzz/replay.ts test-artifacts/fuzz/plans-crash-seed3109.json [...]
// A kept input is JSON `{ name, text }`; its kind is the file name's first word
// (catalogs, plans, yamlPlans, configs). Exit 1 when one still crashes.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { FuzzKind } from './corpus.ts';
import { createScratch, type FuzzInput, runInput } from './targets.ts';

const scratch = await createScratch();
let crashed = false;
for (const file of process.argv.slice(2)) {
  const kind = basename(file).split('-')[0] as FuzzKind;
  const input = JSON.parse(readFileSync(file, 'utf8')) as FuzzInput;
  try {
    const started = performance.now();
    const outcome = await runInput(kind, input, scratch);
    console.log(
      `${file}: ${JSON.stringify(outcome)} in ${Math.round(performance.now() - started)} ms`,
    );
  } catch (error) {
    crashed = true;
    console.log(`${file}: CRASH ${(error as Error).message}`);
  }
}
process.exit(crashed ? 1 : 0);
