#!/usr/bin/env node
// Regenerates assets/schema/*.schema.json from the zod schemas (run after `tsup`).
// Unit tests (json-schema.test.ts in catalog, config and tasks) fail when the committed files
// are stale.
import { writeFile } from 'node:fs/promises';
import { catalogJsonSchema, compactCatalogJsonSchema } from '../packages/catalog/dist/index.js';
import { projectConfigJsonSchema } from '../packages/config/dist/index.js';
import { orchestratePlanJsonSchema } from '../packages/tasks/dist/index.js';

const dir = new URL('../assets/schema/', import.meta.url);
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
