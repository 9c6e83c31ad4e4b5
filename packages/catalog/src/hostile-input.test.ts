import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { resolveCatalogFrom } from './resolve.js';
import { validCatalog } from './test-catalogs.js';

const dir = mkdtempSync(join(tmpdir(), 'sy-catalog-input-'));
const resolveText = async (text: string) => {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, text);
  return resolveCatalogFrom(
    { cwd: dir, flagPath: file, checkExecutables: false, env: {} },
    undefined,
  );
};
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('catalog input: nesting depth and loader variables', () => {
  it('a catalog nested 5,000 deep is a coded parse error with its line, not a RangeError', async () => {
    const deep = 5000;
    for (const text of [
      `${'['.repeat(deep)}${']'.repeat(deep)}`,
      `{"schema_version": 1,\n"targets": ${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}`,
      `{"x": "[[[[ in a string", "y":\n${'['.repeat(deep)}${']'.repeat(deep)}}`,
    ]) {
      const error = await failure(resolveText(text));
      expect(SwitchyardError.is(error), String(error)).toBe(true);
      const e = error as SwitchyardError;
      expect(e.code).toBe('SY_CATALOG_PARSE');
      expect(e.message).toMatch(/nested too deeply/);
      expect(e.line).toBeGreaterThanOrEqual(1);
      expect(e.hint).toMatch(/at most 64/);
    }
    // brackets inside strings do not count
    const fine = validCatalog() as unknown as Record<string, unknown>;
    (fine.targets as Record<string, { model: string }>)['cloud-a']!.model = '['.repeat(500);
    expect((await resolveText(JSON.stringify(fine))).catalog).toBeDefined();
  });

  it('an empty catalog or a syntax error is a parse error on its line (found by the fuzzer)', async () => {
    for (const [text, line, message] of [
      ['', 1, /is empty/],
      ['{\n  "schema_version": 1,\n  "targets": }\n', 3, /not valid JSON/],
      ['{"schema_version": 1,\n\n"x": [1,\n', 4, /not valid JSON/], // the end of the text
    ] as const) {
      const error = (await failure(resolveText(text))) as SwitchyardError;
      expect([error.code, error.line, error.hint], JSON.stringify(text)).toEqual([
        'SY_CATALOG_PARSE',
        line,
        'fix the JSON syntax (a catalog is one JSON object)',
      ]);
      expect(error.message).toMatch(message);
    }
  });

  it('warns (does not refuse) when a target environment sets a loader variable', async () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].runtime.environment = {
      LD_PRELOAD: '/opt/x.so',
      NODE_OPTIONS: '--require /opt/hook.js',
      BASH_ENV: '/opt/env.sh',
      GIT_SSH_COMMAND: 'ssh -i key',
      NO_COLOR: '1',
    };
    const resolved = await resolveText(JSON.stringify(raw));
    expect(resolved.catalog).toBeDefined();
    expect(resolved.warnings?.map((w) => [w.severity, w.path])).toEqual([
      ['warning', 'targets.cloud-a.runtime.environment.LD_PRELOAD'],
      ['warning', 'targets.cloud-a.runtime.environment.NODE_OPTIONS'],
      ['warning', 'targets.cloud-a.runtime.environment.BASH_ENV'],
      ['warning', 'targets.cloud-a.runtime.environment.GIT_SSH_COMMAND'],
    ]);
  });
});
