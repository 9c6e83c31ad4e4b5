// Structure-aware generators: catalogs, PLAN.md files and YAML plans built from their grammar,
// mostly valid (so validation reaches its deep rules: window coverage, lint, dependencies,
// rendering) with hostile values mixed in where users and agents write free text.
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { HOSTILE_TOKENS } from './mutate.ts';

const GROUPS = ['G01', 'G02', 'G03', 'G04', 'G05', 'G06', 'G07', 'G08', 'G09', 'G10'];
export const ROUTE_IDS = [...GROUPS.map((g) => `local-${g}`), ...GROUPS.map((g) => `cloud-${g}`)];

/** argv forms the catalog lint refuses (a shell or inline code smuggled behind a program). */
export const SMUGGLED_ARGV = [
  ['find', '.', '-exec', 'sh', '-c', 'id', ';'],
  ['script', '-qc', 'id', '/dev/null'],
  ['su', 'me', '-c', 'id'],
  ['git', '-c', 'core.pager=sh -c id', 'log'],
  ['npx', '-c', 'id'],
  ['ssh', 'host', 'id'],
  ['sh', '-c', 'id'],
  ['env', 'X=1', 'nice', 'script', '-c', 'id'],
  ['node', '-e', 'x'],
  ['python3', '-cimport os'],
];

/** Credential shapes and literal values the catalog lint refuses. */
export const SECRET_VALUES = [
  `SG.${'aB1x'.repeat(6).slice(0, 22)}.${'aB1x'.repeat(11).slice(0, 43)}`,
  `dop_v1_${'ab12'.repeat(16)}`,
  `shpat_${'ab12'.repeat(8)}`,
  'sk_live_abcdefghijklmnop1234',
  'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
  'Bearer aB1xaB1xaB1xaB1xaB1xaB1xaB1xaB1xaB1xaB1x',
];

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
const freeText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_TOKENS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20, unit: 'binary' }) },
);
const argPart = fc.oneof(
  fc.constantFrom('{prompt}', '{model}', '{agent}', '{workspace}', '{session_id}', '--json', '-p'),
  word,
  freeText,
);

// ---- catalogs -------------------------------------------------------------------------

const runtime = fc.record(
  {
    command: fc.oneof(
      {
        weight: 5,
        arbitrary: fc
          .tuple(word, fc.array(argPart, { maxLength: 5 }))
          .map(([c, a]) => [c, ...a, '{prompt}']),
      },
      { weight: 1, arbitrary: fc.constantFrom(...SMUGGLED_ARGV).map((a) => [...a, '{prompt}']) },
    ),
    resume_command: fc.array(argPart, { minLength: 1, maxLength: 4 }),
    preflight_command: fc.tuple(word).map(([w]) => [w, '--version']),
    environment: fc.dictionary(
      fc.oneof(
        fc.stringMatching(/^[A-Z][A-Z0-9_]{0,12}$/),
        fc.constantFrom('LD_PRELOAD', 'NODE_OPTIONS', 'SESSION', 'COOKIE'),
      ),
      fc.oneof(freeText, fc.constantFrom(...SECRET_VALUES), fc.constant('${HOME}/x')),
      { maxKeys: 3 },
    ),
    output_format: fc.constantFrom('text', 'jsonl', 'xml'),
    session_path: fc.constantFrom('~/.claude/projects', '/tmp/s', '../x'),
    max_attempt_seconds: fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.constant(1.5)),
  },
  { requiredKeys: ['command'] },
);

const target = fc.record(
  {
    agent: fc.oneof(fc.constantFrom('claude-code', 'codex', 'gemini-cli'), word),
    model: fc.oneof(word, freeText),
    execution_class: fc.constantFrom('cloud_model', 'local_model', 'cloud_model', 'gpu'),
    selfcheck_required: fc.boolean(),
    runtime,
  },
  { requiredKeys: ['agent', 'model', 'execution_class', 'runtime'] },
);

const clock = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 30))
    .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
  fc.constantFrom('24:00', '9:00', '25:61', '', '00:00'),
);
const timezone = fc.constantFrom(
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'Mars/Olympus',
  'Etc/GMT+14',
);

function routesOf(ids: string[], windows: boolean): fc.Arbitrary<Record<string, unknown>> {
  const candidates = fc.subarray(ids.length > 0 ? ids : ['missing'], { minLength: 1 });
  const route = fc.oneof(
    { weight: 4, arbitrary: fc.record({ candidates }) },
    {
      weight: windows ? 2 : 0,
      arbitrary: fc
        .tuple(timezone, clock, clock, candidates, candidates, fc.boolean())
        .map(([tz, start, end, a, b, split]) => ({
          windows: split
            ? [
                { timezone: tz, start, end, candidates: a },
                { timezone: tz, start: end, end: start, candidates: b },
              ]
            : [{ timezone: tz, start, end, candidates: a }],
          rule_id: 'r',
          policy_priority: 10,
          reason_codes: ['x'],
        })),
    },
  );
  return fc
    .tuple(
      fc.array(route, { minLength: ROUTE_IDS.length, maxLength: ROUTE_IDS.length }),
      fc.nat({ max: 3 }),
    )
    .map(([routes, drop]) =>
      Object.fromEntries(ROUTE_IDS.slice(drop === 0 ? 1 : 0).map((id, i) => [id, routes[i]])),
    );
}

/** A catalog from its grammar: 1-4 targets, every route, some time windows. */
export const catalogText: fc.Arbitrary<string> = fc
  .dictionary(fc.oneof(word, fc.constantFrom('cloud-a', '__proto__', '')), target, {
    minKeys: 1,
    maxKeys: 4,
  })
  .chain((targets) => {
    const ids = Object.keys(targets);
    return fc
      .tuple(routesOf(ids, true), routesOf(ids, false), fc.constantFrom(1, 1, 1, 2, '1'))
      .map(([worker, review, version]) =>
        JSON.stringify({ schema_version: version, targets, routes: { worker, review } }, null, 2),
      );
  });

// ---- PLAN.md --------------------------------------------------------------------------

const writeSetPath = fc.oneof(
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'src',
          'lib',
          'a.ts',
          '..',
          '.',
          '.git',
          'node_modules',
          '~',
          '*',
          '[id].tsx',
          'a b',
          'C:',
          'ä',
          '\u0000',
          'agent-task',
          'out',
          'alias',
        ),
        word,
      ),
      { minLength: 1, maxLength: 6 },
    )
    .map((s) => s.join('/')),
  fc.constantFrom(
    '/etc/passwd',
    'src/**',
    'src/',
    '\\\\server\\x',
    'file:///x',
    '.git/hooks/pre-commit',
    'sub/.git/config',
  ),
  fc.integer({ min: 100, max: 9000 }).map((n) => `${'d/'.repeat(n)}f.ts`),
);

const frontMatterPair = fc.oneof(
  fc.tuple(fc.constant('route'), fc.oneof(fc.constantFrom(...ROUTE_IDS), freeText)),
  fc.tuple(
    fc.constant('depends_on'),
    fc.oneof(
      fc.array(word, { maxLength: 3 }).map((a) => `[${a.join(', ')}]`),
      fc.constantFrom('[a/b, ../c]', 'x', '[[[[', '&a [*a]'),
    ),
  ),
  fc.tuple(fc.constant('target'), fc.oneof(word, freeText)),
  fc.tuple(fc.constant('max_plan_loops'), fc.constantFrom('3', '0', '-1', '1e9', 'x')),
  fc.tuple(
    fc.constantFrom('complexity', 'risk'),
    fc.constantFrom('routine', 'complex', 'low', 'high', 'x'),
  ),
  fc.tuple(fc.constant('runner'), fc.constantFrom('local', 'code-runner', 'x')),
  fc.tuple(
    fc.constant('command'),
    fc.constantFrom('[node, x.js]', 'node x.js', '[]', '[sh, -c, id]'),
  ),
  fc.tuple(
    fc.constantFrom('shell', 'apply', 'write_set'),
    fc.constantFrom('true', 'source', 'patch', 'any', 'x'),
  ),
  fc.tuple(fc.oneof(word, freeText), freeText),
);
const frontMatter = fc
  .array(frontMatterPair, { maxLength: 6 })
  .map((pairs) => `---\n${pairs.map(([k, v]) => `${k}: ${v}`).join('\n')}\n---\n`);

const block = fc.oneof(
  fc.constantFrom(
    '## Modified Files Summary',
    '## Implementation Checklist',
    '## Definition of Done',
    '## Files to Modify',
    '## Checklist',
    '# Title',
    '```',
    '> quote',
    '- [ ] item',
    '- [x] done',
    'Command: `node --version`',
    'Command: sh -c "id"',
    'Assertion: exit code 0',
    'Assertion: stdout matches /(a+)+$/',
    'Assertion: stdout matches /[/',
    'Assertion: stdout contains "ok"',
    '<div>',
    '***',
    '1. one',
    '| a | b |\n|---|---|\n| c | d |',
    '[ref]: https://example.com',
  ),
  writeSetPath.map((p) => `- ${p}`),
  writeSetPath.map((p) => `- \`${p}\` note`),
  freeText,
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'>'.repeat(n)} deep`),
  fc.integer({ min: 1, max: 500 }).map((n) => `${'  '.repeat(n)}- nested`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'*'.repeat(n)}x${'*'.repeat(n)}`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'['.repeat(n)}x${']('.repeat(n)}`),
);

/** A PLAN.md from its grammar: optional front matter, then headings, lists and prose. */
export const planText: fc.Arbitrary<string> = fc
  .tuple(fc.option(frontMatter, { nil: '' }), fc.array(block, { maxLength: 30 }))
  .map(([fm, blocks]) => fm + blocks.join('\n'));

// ---- YAML plans -----------------------------------------------------------------------

const taskId = fc.oneof(
  word,
  fc.integer({ min: 0, max: 20 }),
  fc.constantFrom('..', '.hidden', 'a/b', 'archive', '', 'a\u0000b', ' '),
);
const planTask = fc.record(
  {
    id: taskId,
    title: freeText,
    lane: fc.oneof(word, fc.integer({ min: 0, max: 3 })),
    runner: fc.constantFrom('code-runner', 'local', 'remote'),
    backend: fc.constantFrom('codex', 'claude-code', 'claude-sonnet', 'nobody'),
    route: fc.oneof(fc.constantFrom(...ROUTE_IDS), freeText),
    complexity: fc.constantFrom('routine', 'standard', 'complex', 'x'),
    risk: fc.constantFrom('low', 'high'),
    depends_on: fc.array(taskId, { maxLength: 3 }),
    implementation: fc.array(freeText, { maxLength: 3 }),
    definition_of_done: fc.record({
      command: fc.oneof(freeText, fc.array(argPart, { minLength: 1, maxLength: 3 })),
      assertion: fc.oneof(
        fc.constantFrom(
          'exit code 0',
          'stdout contains "ok"',
          'stdout matches /^(a+)+$/',
          'stdout matches /[/',
        ),
        freeText,
      ),
    }),
    apply_to_source: fc.boolean(),
    commit_on_success: fc.boolean(),
    rollback_on_failure: fc.boolean(),
    files: fc.array(writeSetPath, { minLength: 1, maxLength: 3 }),
    command: fc.array(argPart, { minLength: 1, maxLength: 3 }),
    shell: fc.boolean(),
  },
  { requiredKeys: ['id', 'title'] },
);

/** A YAML plan from its grammar, written by the yaml library (block or flow style). */
export const yamlPlanText: fc.Arbitrary<string> = fc
  .record(
    {
      version: fc.constantFrom(1, 1, 2),
      kind: fc.constantFrom('orchestrate-plan', 'orchestrate-plan', 'plan'),
      metadata: fc.record(
        { title: freeText, goal: freeText, id: fc.oneof(word, freeText) },
        { requiredKeys: ['title'] },
      ),
      execution: fc.record(
        { max_concurrency: fc.integer({ min: -1, max: 8 }), route: fc.constantFrom(...ROUTE_IDS) },
        { requiredKeys: [] },
      ),
      lanes: fc.array(
        fc.record({ id: fc.oneof(word, fc.integer({ min: 0, max: 3 })), label: freeText }),
        { maxLength: 3 },
      ),
      tasks: fc.array(planTask, { minLength: 1, maxLength: 6 }),
    },
    { requiredKeys: ['version', 'kind', 'metadata', 'tasks'] },
  )
  .chain((plan) =>
    fc
      .boolean()
      .map((flow) => toYaml(plan, { collectionStyle: flow ? 'flow' : 'any', lineWidth: 0 })),
  );
