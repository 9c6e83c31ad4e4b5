// Property-based fuzzing of the inputs switchyard takes from users and agents: plans, write
// sets and catalogs. Seeded (a fixed seed by default, so every run checks the same inputs); try
// another with SWITCHYARD_FUZZ_SEED=<n> node test/run-tests.mjs test/hardening/fuzz.test.ts
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { validateCatalog } from '@switchyard/catalog';
import { parsePlan, WriteSetResolver } from '@switchyard/tasks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLI } from '../dispatcher/helpers.js';

const seed = Number(process.env.SWITCHYARD_FUZZ_SEED ?? 3109);
process.stdout.write(`fuzz seed ${seed} (another: SWITCHYARD_FUZZ_SEED=<n>)\n`);
const params = (numRuns: number) => ({ seed, numRuns, endOnFailure: true });

// A workspace with inside and outside symlinks, a FIFO, a hard link to an outside file.
const root = mkdtempSync(join(tmpdir(), 'sy-fuzz-'));
const ws = join(root, 'ws');
const outside = join(root, 'outside');
mkdirSync(join(ws, 'src', 'app'), { recursive: true });
mkdirSync(join(ws, 'agent-task', 'g', 't'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(outside, 'victim.ts'), 'outside\n');
writeFileSync(join(ws, 'src', 'app', 'main.ts'), '');
symlinkSync(outside, join(ws, 'out'));
symlinkSync(join(ws, 'src', 'app'), join(ws, 'alias'));
symlinkSync(join(outside, 'victim.ts'), join(ws, 'src', 'victim.ts'));
symlinkSync('/dev/zero', join(ws, 'src', 'zero.ts'));
spawnSync('mkfifo', [join(ws, 'src', 'pipe.ts')]);
const wsReal = realpathSync(ws);

/** Every file below `dir` with its content (the outside tree must never change). */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${p}:${e.isFile() ? readFileSync(p, 'utf8') : 'special'}`);
    }
  };
  walk(dir);
  return out.join('\n');
}
const outsideBefore = snapshot(outside);

const segment = fc.oneof(
  fc.constantFrom(
    'src',
    'app',
    'main.ts',
    '..',
    '.',
    '',
    'out',
    'alias',
    'agent-task',
    '.git',
    'zero.ts',
    'pipe.ts',
    'victim.ts',
    '~',
    '*',
    '[id].tsx',
    'a b',
    '\\x',
    'C:',
    'ä',
    '\u0000',
  ),
  fc.string({ maxLength: 8 }),
);
const writeSetPath = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 8 }).map((s) => s.join('/')),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`),
  fc.integer({ min: 100, max: 9000 }).map((n) => `${'d/'.repeat(n)}f.ts`),
  fc.string({ maxLength: 40 }),
);

const frontMatterValue = fc.oneof(
  fc.constantFrom(
    'local-G01',
    'cloud-G10',
    'nowhere',
    '[a, b/c]',
    '[t]',
    '3',
    '0x1f',
    'true',
    '~',
    '"q"',
    '{a: 1}',
    '[[[[',
    '&a [*a]',
  ),
  fc.string({ maxLength: 20 }),
);
const frontMatter = fc
  .array(
    fc.tuple(
      fc.constantFrom('route', 'depends_on', 'target', 'max_plan_loops', 'extra', 'route'),
      frontMatterValue,
    ),
    { maxLength: 6 },
  )
  .map((pairs) => `---\n${pairs.map(([k, v]) => `${k}: ${v}`).join('\n')}\n---\n`);
const block = fc.oneof(
  fc.constantFrom(
    '## Modified Files Summary',
    '## Implementation Checklist',
    '## Definition of Done',
    '# Title',
    '## Files to Modify',
    '```',
    '> quote',
    '- [ ] item',
    '- [x] done',
    'Command: `node --version`',
    'Assertion: exit code 0',
    '<div>',
    '***',
    '1. one',
  ),
  writeSetPath.map((p) => `- ${p}`),
  writeSetPath.map((p) => `- \`${p}\` note`),
  fc.string({ maxLength: 60 }),
  fc.integer({ min: 1, max: 200 }).map((n) => `${'>'.repeat(n)} deep`),
  fc.integer({ min: 1, max: 60 }).map((n) => `${'  '.repeat(n)}- nested`),
);
const planText = fc
  .tuple(fc.option(frontMatter, { nil: '' }), fc.array(block, { maxLength: 30 }))
  .map(([fm, blocks]) => fm + blocks.join('\n'));

/** Every accepted path's real location is inside the workspace. */
function assertInside(path: string, resolved: string | undefined): void {
  for (const rel of [path, resolved].filter((p): p is string => p !== undefined)) {
    const abs = resolve(wsReal, rel);
    expect(abs.startsWith(wsReal + sep), `${rel} escapes`).toBe(true);
    let real: string | undefined;
    try {
      real = realpathSync(abs);
    } catch {}
    if (real) expect(real.startsWith(wsReal + sep), `${rel} resolves to ${real}`).toBe(true);
  }
}

describe('fuzz: plans, write sets and catalogs', { timeout: 120_000 }, () => {
  it('write-set entries: never throw; every accepted path stays inside the workspace', () => {
    const resolver = new WriteSetResolver(ws);
    fc.assert(
      fc.property(writeSetPath, (entry) => {
        const result = new WriteSetResolver(ws).check(entry);
        expect(resolver.check(entry)).toEqual(result);
        if (result.ok) assertInside(result.path, result.resolved);
        else expect(result.message.length).toBeGreaterThan(0);
      }),
      params(500),
    );
  });

  it('plans: never throw; problems are coded; accepted write sets stay inside', () => {
    fc.assert(
      fc.property(planText, (text) => {
        const plan = parsePlan(text, { file: 'PLAN.md', workspace: ws });
        for (const p of plan.problems) expect(p.code).toMatch(/^SY_(PLAN_INVALID|GRAPH_INVALID)$/);
        for (const entry of plan.writeSet) assertInside(entry.path, entry.resolved);
      }),
      params(500),
    );
  });

  it('catalogs: validation never throws and reports coded problems with a JSON path', () => {
    const base = {
      schema_version: 1,
      targets: {
        t: {
          agent: 'a',
          model: 'm',
          execution_class: 'cloud_model',
          runtime: { command: ['agent', '{prompt}'] },
        },
      },
      routes: { worker: {}, review: {} },
    };
    const argv = fc.array(
      fc.oneof(
        fc.constantFrom(
          'env',
          'sh',
          '-c',
          'nice',
          '-n',
          '5',
          'timeout',
          '60',
          'node',
          '-e',
          'python3',
          'busybox',
          '{prompt}',
          '{model}',
          '{bogus}',
          'PASS=x',
          'sk_live_abcdefghijklmnop1234',
          'a | b',
          '${X}',
        ),
        fc.string({ maxLength: 12 }),
      ),
      { maxLength: 8 },
    );
    const value = fc.oneof(argv, fc.jsonValue({ maxDepth: 3 }));
    const field = fc.constantFrom(
      'command',
      'resume_command',
      'preflight_command',
      'environment',
      'output_format',
      'session_path',
      'extra',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(field, value), { maxLength: 4 }), (edits) => {
        const raw = structuredClone(base) as typeof base & Record<string, unknown>;
        const runtime = raw.targets.t.runtime as Record<string, unknown>;
        for (const [k, v] of edits) runtime[k] = v;
        const { problems } = validateCatalog(raw, { checkExecutables: false });
        for (const p of problems) expect(p.code).toMatch(/^SY_CATALOG_/);
      }),
      params(400),
    );
  });

  it('through the real CLI: validate-plan and catalog validate exit 0 or 2, never 1; nothing written outside', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [CLI, ...args], {
        cwd: ws,
        env: { PATH: '/usr/bin:/bin', HOME: root },
        encoding: 'utf8',
        timeout: 30_000,
      });
    fc.assert(
      fc.property(planText, (text) => {
        writeFileSync(join(ws, 'agent-task', 'g', 't', 'PLAN.md'), text);
        const r = run(['validate-plan', 'agent-task/g/t/PLAN.md', '--json']);
        expect([0, 2], r.stderr).toContain(r.status);
      }),
      params(8),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
        ),
        (text) => {
          writeFileSync(join(root, 'catalog.json'), text);
          const r = run([
            'catalog',
            'validate',
            '--execution-catalog',
            join(root, 'catalog.json'),
            '--skip-command-check',
          ]);
          expect([0, 2], r.stderr).toContain(r.status);
        },
      ),
      params(4),
    );
    expect(snapshot(outside)).toBe(outsideBefore);
  });
});
