#!/usr/bin/env node
// Regenerates assets/schema/*.schema.json from the zod schemas (run after `tsup`).
// A unit test (src/catalog/json-schema.test.ts) fails when the committed files are stale.
import { writeFile } from 'node:fs/promises';
import {
  catalogJsonSchema,
  compactCatalogJsonSchema,
  orchestratePlanJsonSchema,
  projectConfigJsonSchema,
} from '../dist/index.js';

const dir = new URL('../../../assets/schema/', import.meta.url);
const files = {
  'execution-catalog.schema.json': catalogJsonSchema(),
  'execution-catalog-compact.schema.json': compactCatalogJsonSchema(),
  'project-config.schema.json': projectConfigJsonSchema(),
  'orchestrate-plan.schema.json': orchestratePlanJsonSchema(),
};
for (const [name, schema] of Object.entries(files)) {
  await writeFile(new URL(name, dir), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote assets/schema/${name}`);
}
