import { readFileSync } from 'node:fs';
import { assetPath } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { projectConfigJsonSchema } from './json-schema.js';

const committed = (name: string) => JSON.parse(readFileSync(assetPath('schema', name), 'utf8'));

describe('generated JSON Schema of the project config', () => {
  it('the committed project-config schema equals the generated one (regenerate: pnpm generate:schema)', () => {
    expect(committed('project-config.schema.json')).toEqual(projectConfigJsonSchema());
  });
});
