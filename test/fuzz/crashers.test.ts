// Every input that once crashed, hung or got an unlocated answer from a parser
// (test/fixtures/fuzz/crashers/, named by parser: catalog-, plan-, yaml-plan-, config-) is
// replayed through the same in-process targets as the fuzzer: each is now refused with its
// code, where it is and what it says, or read fine when it was valid (expected.json). The catalog lint's forms are loaded as
// real catalog files and refused on their JSON path.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CRASHERS, type FuzzKind, kindOfFixture, REPO } from './corpus.ts';
import { createScratch, type Outcome, runCatalog, runInput, type Scratch } from './targets.ts';

interface Expected {
  /** Read fine (a crasher that was valid input all along, like a commented-out config). */
  accepted?: true;
  code?: string;
  line?: number;
  message?: string;
}
const expected = JSON.parse(readFileSync(join(CRASHERS, 'expected.json'), 'utf8')) as Record<
  string,
  Expected
>;
const fixtures = readdirSync(CRASHERS).filter((name) => kindOfFixture(name) !== undefined);

let scratch: Scratch;
beforeAll(async () => {
  scratch = await createScratch();
});

function replay(name: string): Promise<Outcome> | Outcome {
  const text = readFileSync(join(CRASHERS, name), 'utf8');
  return runInput(kindOfFixture(name) as FuzzKind, { name, text }, scratch);
}

describe('fuzz crashers: refused with a code, a place and a message', () => {
  it('every fixture has its expectation', () => {
    expect(fixtures.filter((name) => !expected[name])).toEqual([]);
    expect(Object.keys(expected).filter((name) => !fixtures.includes(name))).toEqual([]);
  });

  for (const name of fixtures)
    it(name, async () => {
      const want = expected[name] as Expected;
      const outcome = await replay(name);
      expect(outcome.accepted, JSON.stringify(outcome.errors)).toBe(want.accepted === true);
      if (want.accepted) return;
      const first = outcome.errors[0];
      expect(first?.code).toBe(want.code);
      if (want.line !== undefined) expect(outcome.errors.map((e) => e.line)).toContain(want.line);
      if (want.message !== undefined)
        expect(outcome.errors.map((e) => e.message).join('\n')).toContain(want.message);
    });
});

describe('fuzz crashers: the catalog lint forms, loaded from a file', () => {
  const lint = JSON.parse(readFileSync(join(CRASHERS, 'lint-forms.json'), 'utf8')) as {
    argv: string[][];
    secrets: Record<string, string>;
    loaderVariables: string[];
  };
  const demo = readFileSync(join(REPO, 'assets', 'demo', 'catalog.json'), 'utf8');
  const target = Object.keys(JSON.parse(demo).targets)[0] as string;
  const withRuntime = (edit: (runtime: Record<string, unknown>) => void): string => {
    const catalog = JSON.parse(demo);
    edit(catalog.targets[target].runtime);
    return JSON.stringify(catalog, null, 2);
  };

  it('refuses each smuggled shell and each secret on its JSON path', async () => {
    const missed: string[] = [];
    for (const argv of lint.argv) {
      const outcome = await runCatalog(
        withRuntime((r) => {
          r.command = [...argv, '{prompt}'];
        }),
        scratch,
      );
      if (!outcome.errors.some((e) => e.path === `targets.${target}.runtime.command.0`))
        missed.push(argv.join(' '));
    }
    for (const [name, value] of Object.entries(lint.secrets)) {
      const outcome = await runCatalog(
        withRuntime((r) => {
          r.environment = { [name]: value };
        }),
        scratch,
      );
      if (!outcome.errors.some((e) => e.path === `targets.${target}.runtime.environment.${name}`))
        missed.push(name);
    }
    expect(missed).toEqual([]);
  });

  it('warns on loader variables in environment, naming each', async () => {
    const file = join(scratch.root, 'loader-variables.json');
    writeFileSync(
      file,
      withRuntime((r) => {
        r.environment = Object.fromEntries(lint.loaderVariables.map((v) => [v, '/opt/x']));
      }),
    );
    const { resolveCatalog } = await import('@switchyard/config');
    const resolved = await resolveCatalog({
      cwd: scratch.root,
      flagPath: file,
      env: {},
      checkExecutables: false,
    }).catch((e: unknown) => e);
    expect(SwitchyardError.is(resolved), String(resolved)).toBe(false);
    const warnings = (resolved as { warnings?: { path?: string }[] }).warnings ?? [];
    expect(warnings.map((w) => w.path)).toEqual(
      lint.loaderVariables.map((v) => `targets.${target}.runtime.environment.${v}`),
    );
  });
});
