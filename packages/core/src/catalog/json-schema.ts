import { z } from 'zod';
import { projectConfigSchema } from '../config/schema.js';
import { catalogSchema, routeSchema, runtimeSchema, targetSchema, windowSchema } from './schema.js';

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

/** The JSON Schema of the project config, generated from the zod schema. */
export function projectConfigJsonSchema(): Record<string, unknown> {
  return {
    title: 'switchyard project config',
    ...z.toJSONSchema(projectConfigSchema, { io: 'input', unrepresentable: 'any' }),
  };
}
