import { CATALOG_SCHEMA_VERSION, ROUTE_IDS } from '@switchyard/core';
import { z } from 'zod';
import {
  catalogSchema,
  routeFields,
  routeSchema,
  runtimeSchema,
  targetSchema,
  windowSchema,
} from './schema.js';

/** Names for the reused parts, so the generated `$defs` read well. */
function definitions() {
  const registry = z.registry<{ id: string }>();
  registry.add(targetSchema, { id: 'target' });
  registry.add(runtimeSchema, { id: 'runtime' });
  registry.add(routeSchema, { id: 'route' });
  registry.add(windowSchema, { id: 'window' });
  return registry;
}

/** The JSON Schema of the execution catalog as written in a file, generated from the zod schema. */
export function catalogJsonSchema(): Record<string, unknown> {
  return {
    title: 'switchyard execution catalog',
    ...z.toJSONSchema(catalogSchema, {
      io: 'input',
      unrepresentable: 'any',
      metadata: definitions(),
    }),
  };
}

/**
 * The compact authoring form (`compact.ts`), for editors: `defaults` and only the routes that
 * differ. Each route still needs exactly one of candidates / windows (checked on expansion).
 */
function compactCatalogSchema() {
  const route = z.strictObject(routeFields).describe('A route: candidates or windows.');
  const kinds = {
    local: route.optional().describe('The default of the local-G01…G10 routes.'),
    cloud: route.optional().describe('The default of the cloud-G01…G10 routes.'),
  };
  const stageDefault = z
    .strictObject({ ...routeFields, ...kinds })
    .optional()
    .describe("One stage's default route (and per kind).");
  const stageRoutes = z
    .strictObject(Object.fromEntries(ROUTE_IDS.map((id) => [id, route.optional()])))
    .optional()
    .describe('Only the routes that differ from their default.');
  return z
    .strictObject({
      $schema: z.string().optional(),
      schema_version: z.literal(CATALOG_SCHEMA_VERSION),
      targets: z.record(z.string(), targetSchema),
      defaults: z
        .strictObject({ ...routeFields, ...kinds, worker: stageDefault, review: stageDefault })
        .describe(
          'The route every route id takes unless a narrower default (a stage, a kind) or routes.<stage>.<id> gives its own.',
        ),
      routes: z
        .strictObject({ worker: stageRoutes, review: stageRoutes })
        .optional()
        .describe('Only the routes that differ from their default.'),
    })
    .describe(
      'switchyard execution catalog, compact form: expanded to the full form before it is validated and hashed.',
    );
}

/** The JSON Schema of the compact catalog form, generated from zod. */
export function compactCatalogJsonSchema(): Record<string, unknown> {
  return {
    title: 'switchyard execution catalog (compact form)',
    ...z.toJSONSchema(compactCatalogSchema(), {
      io: 'input',
      unrepresentable: 'any',
      metadata: definitions(),
    }),
  };
}
