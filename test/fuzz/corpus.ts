// The real, valid inputs the fuzzer starts from: the repository's own catalogs, PLAN.md files,
// YAML plans and configs, the richer examples in test/fixtures/fuzz/corpus/, and every input
// that once broke a parser (test/fixtures/fuzz/crashers/), so mutations explore around them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const FUZZ_FIXTURES = join(REPO, 'test', 'fixtures', 'fuzz');
export const CRASHERS = join(FUZZ_FIXTURES, 'crashers');

/** One input: `name` carries the file name (its extension picks the YAML or JSON reader). */
export interface Seed {
  name: string;
  text: string;
  /** From crashers/: mutated as text only (a 5,000-deep document is no base for edits). */
  crasher?: boolean;
}

/** Seeds by parser. */
export interface Corpus {
  catalogs: Seed[];
  plans: Seed[];
  yamlPlans: Seed[];
  configs: Seed[];
}

export type FuzzKind = keyof Corpus;

const read = (...parts: string[]): Seed => ({
  name: parts.at(-1) as string,
  text: readFileSync(join(REPO, ...parts), 'utf8'),
});

const filesIn = (dir: string, pattern: RegExp): Seed[] =>
  readdirSync(dir)
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));

/** Which parser a crasher fixture is for, by its file name prefix. */
export function kindOfFixture(name: string): FuzzKind | undefined {
  if (name.startsWith('catalog-')) return 'catalogs';
  if (name.startsWith('yaml-plan-')) return 'yamlPlans';
  if (name.startsWith('plan-')) return 'plans';
  if (name.startsWith('config-')) return 'configs';
  return undefined;
}

/** The crasher fixtures (inputs that once crashed or hung a parser), by kind. */
export function crasherSeeds(): Record<FuzzKind, Seed[]> {
  const out: Record<FuzzKind, Seed[]> = { catalogs: [], plans: [], yamlPlans: [], configs: [] };
  for (const seed of filesIn(CRASHERS, /^(catalog|plan|yaml-plan|config)-/))
    out[kindOfFixture(seed.name) as FuzzKind].push({ ...seed, crasher: true });
  return out;
}

export function loadCorpus(): Corpus {
  const corpus = join(FUZZ_FIXTURES, 'corpus');
  const demoTasks = join(REPO, 'assets', 'demo', 'backlog', 'agent-task');
  const demoPlans = readdirSync(demoTasks)
    .sort()
    .flatMap((group) =>
      readdirSync(join(demoTasks, group))
        .sort()
        .map((task) => read('assets', 'demo', 'backlog', 'agent-task', group, task, 'PLAN.md.txt')),
    );
  const demoCatalog = read('assets', 'demo', 'catalog.json');
  const crashers = crasherSeeds();
  return {
    catalogs: [read('assets', 'default-execution-catalog.json'), demoCatalog, ...crashers.catalogs],
    plans: [...demoPlans, ...filesIn(corpus, /^PLAN.*\.md$/), ...crashers.plans],
    yamlPlans: [
      read('test', 'fixtures', 'seed-003', 'tasks.yaml'),
      read('test', 'fixtures', 'seed-003', 'tasks.md'),
      ...filesIn(corpus, /^plan-.*\.yaml$/),
      ...crashers.yamlPlans,
    ],
    configs: [
      read('assets', 'demo', 'backlog', 'switchyard.config.json'),
      ...filesIn(corpus, /^config-.*\.(json|yaml)$/),
      {
        name: 'config-inline-catalog.json',
        text: JSON.stringify({ maxParallel: 2, executionCatalog: JSON.parse(demoCatalog.text) }),
      },
      ...crashers.configs,
    ],
  };
}
