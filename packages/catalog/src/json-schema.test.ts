import { readFileSync } from 'node:fs';
import { assetPath } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { catalogJsonSchema, compactCatalogJsonSchema } from './json-schema.js';

const committed = (name: string) => JSON.parse(readFileSync(assetPath('schema', name), 'utf8'));

describe('generated JSON Schemas', () => {
  it('the committed catalog schema equals the one generated from zod (regenerate: pnpm generate:schema)', () => {
    expect(committed('execution-catalog.schema.json')).toEqual(catalogJsonSchema());
  });

  it('the committed compact-catalog schema equals the generated one', () => {
    expect(committed('execution-catalog-compact.schema.json')).toEqual(compactCatalogJsonSchema());
  });

  it('describes the contract: exact root keys, all 20 routes per stage, no extra keys', () => {
    const schema = catalogJsonSchema() as any;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['schema_version', 'targets', 'routes']);
    const worker = schema.properties.routes.properties.worker;
    expect(worker.required).toHaveLength(20);
    expect(worker.additionalProperties).toBe(false);
  });
});
