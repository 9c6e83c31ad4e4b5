// One fuzz campaign in a worker thread, so the test can time every input from outside and end
// a parser that hangs: before each input the worker posts it, after it the outcome. A broken
// contract (see targets.ts) fails the fast-check property, which shrinks it to a small input.
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { type FuzzKind, loadCorpus, type Seed } from './corpus.ts';
import { catalogText, planText, SECRET_VALUES, SMUGGLED_ARGV, yamlPlanText } from './generators.ts';
import { mutatedDocument, mutatedText } from './mutate.ts';
import { createScratch, FuzzCrash, type FuzzInput, type Outcome, runInput } from './targets.ts';

export interface FuzzJob {
  kind: FuzzKind;
  seed: number;
  runs: number;
}

/** An input: its text and the file name it is read as. */
type Input = FuzzInput;

/** Messages to the test. */
export type FuzzMessage =
  | { type: 'start'; input: Input }
  | { type: 'end'; accepted: boolean; codes: string[]; ms: number }
  | { type: 'done'; report: FuzzReport };

export interface FuzzReport {
  kind: FuzzKind;
  seed: number;
  /** Inputs fast-check generated (shrinking runs not counted). */
  runs: number;
  accepted: number;
  /** How often each error code was the answer. */
  codes: Record<string, number>;
  /** The input that took longest (ms). */
  slowest: { ms: number; input?: Input };
  /** CPU seconds of the campaign's thread (generation included). */
  cpuSeconds: number;
  crash?: { input: Input; error: string; replay: string };
}

/** Seeds parsed for structural edits (the crashers stay text seeds). */
const parsed = (seeds: Seed[], parse: (text: string) => unknown): unknown[] =>
  seeds.flatMap((s) => {
    if (s.crasher) return [];
    try {
      const value = parse(s.text);
      return typeof value === 'object' && value !== null ? [value] : [];
    } catch {
      return [];
    }
  });
const named =
  (name: string) =>
  (text: string): Input => ({ name, text });
const ofExtension = (seeds: Seed[], ext: RegExp) => seeds.filter((s) => ext.test(s.name));

const CATALOG_KEYS = [
  'schema_version',
  'targets',
  'routes',
  'runtime',
  'command',
  'environment',
  'windows',
  'candidates',
  'timezone',
  'start',
  'end',
  'output_format',
  'resume_command',
  'preflight_command',
];
const CONFIG_KEYS = [
  'executionCatalog',
  'maxParallel',
  'retry',
  'gates',
  'routing',
  'sandbox',
  'isolation',
  'notify',
  'prompts',
  'plugins',
  'cost',
  'prices',
];
const PLAN_KEYS = [
  'version',
  'kind',
  'metadata',
  'tasks',
  'lanes',
  'id',
  'depends_on',
  'files',
  'runner',
  'command',
  'definition_of_done',
  'route',
  'backend',
];
const STRINGS = [
  ...SMUGGLED_ARGV.flat(),
  ...SECRET_VALUES,
  '{prompt}',
  '{model}',
  'cloud-G05',
  'local',
  'worktree',
  'src/a.ts',
  '../x',
  '.git/config',
  'a\u0000b',
];

/** What a campaign generates: mutated seeds and inputs built from the grammar. */
function inputsOf(kind: FuzzKind): fc.Arbitrary<Input> {
  const corpus = loadCorpus();
  switch (kind) {
    case 'catalogs': {
      const seeds = corpus.catalogs;
      return fc.oneof(
        { weight: 4, arbitrary: mutatedText(seeds.map((s) => s.text)).map(named('catalog.json')) },
        {
          weight: 4,
          arbitrary: mutatedDocument(parsed(seeds, JSON.parse), 'json', STRINGS, CATALOG_KEYS).map(
            named('catalog.json'),
          ),
        },
        { weight: 2, arbitrary: catalogText.map(named('catalog.json')) },
      );
    }
    case 'plans':
      return fc
        .tuple(
          fc.oneof(
            { weight: 5, arbitrary: mutatedText(corpus.plans.map((s) => s.text)) },
            { weight: 5, arbitrary: planText },
          ),
          fc.boolean(),
        )
        .map(([text, followUp]) => ({ name: 'PLAN.md', text, followUp }));
    case 'yamlPlans': {
      const yaml = ofExtension(corpus.yamlPlans, /\.ya?ml$/);
      const markdown = ofExtension(corpus.yamlPlans, /\.md$/);
      const plan = fc.oneof(
        { weight: 4, arbitrary: mutatedText(yaml.map((s) => s.text)).map(named('plan.yaml')) },
        {
          weight: 3,
          arbitrary: mutatedDocument(
            parsed(yaml, (t) => parseYaml(t, { maxAliasCount: 100 })),
            'yaml',
            STRINGS,
            PLAN_KEYS,
          ).map(named('plan.yaml')),
        },
        { weight: 2, arbitrary: yamlPlanText.map(named('plan.yaml')) },
        { weight: 1, arbitrary: mutatedText(markdown.map((s) => s.text)).map(named('tasks.md')) },
      );
      return fc
        .tuple(
          plan,
          fc.constantFrom('worktree', 'worktree', 'none') as fc.Arbitrary<'worktree' | 'none'>,
        )
        .map(([input, isolation]) => ({ ...input, isolation }));
    }
    case 'configs': {
      const json = ofExtension(corpus.configs, /\.json$/);
      const yaml = ofExtension(corpus.configs, /\.ya?ml$/);
      const docs = [
        ...parsed(json, JSON.parse),
        ...parsed(yaml, (t) => parseYaml(t, { maxAliasCount: 100 })),
      ];
      return fc.oneof(
        {
          weight: 2,
          arbitrary: mutatedText(json.map((s) => s.text)).map(named('switchyard.config.json')),
        },
        {
          weight: 2,
          arbitrary: mutatedText(yaml.map((s) => s.text)).map(named('switchyard.config.yaml')),
        },
        {
          weight: 2,
          arbitrary: mutatedDocument(docs, 'json', STRINGS, [...CONFIG_KEYS, ...CATALOG_KEYS]).map(
            named('switchyard.config.json'),
          ),
        },
        {
          weight: 2,
          arbitrary: mutatedDocument(docs, 'yaml', STRINGS, [...CONFIG_KEYS, ...CATALOG_KEYS]).map(
            named('switchyard.config.yaml'),
          ),
        },
      );
    }
  }
}

async function campaign(job: FuzzJob): Promise<FuzzReport> {
  const scratch = await createScratch();
  const report: FuzzReport = {
    kind: job.kind,
    seed: job.seed,
    runs: 0,
    accepted: 0,
    codes: {},
    slowest: { ms: 0 },
    cpuSeconds: 0,
  };
  const cpuBefore = process.threadCpuUsage();
  const post = (message: FuzzMessage) => parentPort?.postMessage(message);
  let failed = false;
  const details = await fc.check(
    fc.asyncProperty(inputsOf(job.kind), async (input) => {
      post({ type: 'start', input });
      const started = performance.now();
      let outcome: Outcome;
      try {
        outcome = await runInput(job.kind, input, scratch);
      } catch (error) {
        failed = true;
        throw error;
      }
      const ms = performance.now() - started;
      post({ type: 'end', ...outcome, ms });
      if (failed) return; // shrinking: not a new input
      if (ms > report.slowest.ms) report.slowest = { ms: Math.round(ms), input };
      if (outcome.accepted) report.accepted++;
      for (const code of outcome.codes) report.codes[code] = (report.codes[code] ?? 0) + 1;
    }),
    { seed: job.seed, numRuns: job.runs },
  );
  report.runs = details.numRuns;
  const cpu = process.threadCpuUsage(cpuBefore);
  report.cpuSeconds = (cpu.user + cpu.system) / 1e6;
  if (details.failed) {
    const input = details.counterexample?.[0] as Input;
    const error = details.errorInstance;
    report.crash = {
      input,
      error: error instanceof FuzzCrash ? error.message : String((error as Error)?.stack ?? error),
      replay: `SWITCHYARD_FUZZ_SEED=${job.seed} (fast-check path ${details.counterexamplePath})`,
    };
  }
  return report;
}

const job = workerData as FuzzJob;
const report = await campaign(job);
parentPort?.postMessage({ type: 'done', report } satisfies FuzzMessage);
