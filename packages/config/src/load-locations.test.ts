import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Problem, SwitchyardError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { loadProjectConfig } from './load.js';

/** Writes one config file in a fresh folder and returns the error loading it throws. */
async function failure(name: string, text: string): Promise<SwitchyardError> {
  const dir = await mkdtemp(join(tmpdir(), 'sy-config-at-'));
  await writeFile(join(dir, name), text);
  const error = await loadProjectConfig(dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!error) throw new Error(`${name} loaded without an error`);
  return error as SwitchyardError;
}

const only = (error: SwitchyardError): Problem => {
  expect(error.code).toBe('SY_CONFIG_INVALID');
  expect(error.problems).toHaveLength(1);
  return error.problems[0] as Problem;
};

describe('config problems name the line, the value and what to do', () => {
  it('a wrong type in JSON: the line and column of the value, the value, the type to give', async () => {
    const error = await failure('switchyard.config.json', '{\n  "maxParallel": "three"\n}\n');
    expect(only(error)).toMatchObject({
      code: 'SY_CONFIG_INVALID',
      file: expect.stringMatching(/switchyard\.config\.json$/),
      path: 'maxParallel',
      line: 2,
      column: 18,
      value: '"three"',
      hint: 'give a value of type number',
    });
  });

  it('an unknown key in YAML: the line of the key itself, what it holds, the allowed keys', async () => {
    const error = await failure(
      'switchyard.config.yaml',
      'maxParallel: 2\nretry:\n  baseDelayMs: 10\n  colour: red\n',
    );
    expect(only(error)).toMatchObject({
      path: 'retry.colour',
      line: 4,
      column: 3,
      value: '"red"',
      hint: 'remove the key; allowed keys: baseDelayMs, maxDelayMs',
    });
  });

  it('a bad enum value in YAML (.switchyardrc): its line, the value, the allowed ones', async () => {
    const error = await failure('.switchyardrc', 'sandbox:\n  mode: bwrap\n  network: maybe\n');
    expect(only(error)).toMatchObject({
      path: 'sandbox.network',
      line: 3,
      column: 12,
      value: '"maybe"',
      hint: 'use one of: "host", "none"',
    });
  });

  it('a number out of range: the bound in the hint, in YAML and in package.json', async () => {
    const yaml = await failure(
      '.switchyardrc.yaml',
      'store:\n  url: postgres://u:hunter2@db/sy\n  leaseSeconds: 99999\n',
    );
    expect(only(yaml)).toMatchObject({
      path: 'store.leaseSeconds',
      line: 3,
      value: '99999',
      hint: 'give a number of at most 3600',
    });
    const pkg = await failure(
      'package.json',
      '{\n  "name": "x",\n  "switchyard": {\n    "maxParallel": -1\n  }\n}\n',
    );
    expect(only(pkg)).toMatchObject({
      path: 'maxParallel',
      line: 4,
      column: 20,
      value: '-1',
      hint: 'give a number of at least 0',
    });
  });

  it('a missing key points at the object that lacks it', async () => {
    const error = await failure(
      'switchyard.config.json',
      '{\n  "gates": [\n    { "name": "test" }\n  ]\n}\n',
    );
    const problem = error.problems.find((p) => p.path === 'gates.0.command');
    expect(problem).toMatchObject({ line: 3, hint: 'add the key' });
    expect(problem?.value).toBeUndefined();
  });

  it('a JS config has no lines to name, but still the value', async () => {
    const error = await failure('switchyard.config.mjs', 'export default { maxParallel: "2" };\n');
    const problem = only(error);
    expect(problem).toMatchObject({ path: 'maxParallel', value: '"2"' });
    expect(problem.line).toBeUndefined();
  });

  it('a long value is cut, and a secret is never shown', async () => {
    const long = await failure('switchyard.config.json', `{ "writeSet": "${'x'.repeat(500)}" }`);
    const shown = only(long).value ?? '';
    expect(shown.length).toBeLessThanOrEqual(81);
    expect(shown).toMatch(/^"x+…$/);
    const secrets = await failure(
      'switchyard.config.yaml',
      [
        'notify:',
        '  webhooks:',
        '    - url: https://hooks.example/x',
        '      headers: "Bearer abcdefghijklmnopqrstuvwxyz0123456789"',
        '    - url: https://hooks.example/y',
        '      headers:',
        '        X-Api-Token: 98234757234598723459',
        'store: { url: "postgres://u:hunter2@db/sy", leaseSeconds: "often" }',
        '',
      ].join('\n'),
    );
    const text = JSON.stringify(secrets.problems);
    expect(text).not.toContain('abcdefghijklmnop');
    expect(text).not.toContain('98234757234598723459');
    expect(text).not.toContain('hunter2');
    const at = (path: string) => secrets.problems.find((p) => p.path === path);
    expect(at('notify.webhooks.0.headers')).toMatchObject({ line: 4, value: '(redacted)' });
    expect(at('notify.webhooks.1.headers.X-Api-Token')).toMatchObject({
      line: 7,
      value: '(redacted)',
    });
    expect(at('store.leaseSeconds')).toMatchObject({ line: 8, value: '"often"' });
  });

  it('a YAML syntax error: line, column, the path it is under, its line of text, the hint', async () => {
    const error = await failure('switchyard.config.yaml', 'maxParallel: 2\nretry: [[[# x\n');
    expect([error.code, error.line, error.hint]).toEqual([
      'SY_CONFIG_INVALID',
      2,
      'fix the syntax of the config file',
    ]);
    expect(only(error)).toMatchObject({
      line: 2,
      column: 11,
      // inside the flow sequences it opens
      path: 'retry.0.0',
      value: 'retry: [[[# x',
      hint: 'fix the syntax of the config file',
    });
  });

  it('a JSON syntax error: line, column, the path it is under, the token', async () => {
    const error = await failure('.switchyardrc.json', '{\n  "maxParallel": 2,\n  "retry": }\n');
    expect([error.line, error.hint]).toEqual([3, 'fix the syntax of the config file']);
    expect(only(error)).toMatchObject({
      line: 3,
      column: 12,
      path: 'retry',
      value: '}',
      hint: 'fix the syntax of the config file',
    });
  });
});
