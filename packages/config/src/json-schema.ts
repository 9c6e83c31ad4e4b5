import { z } from 'zod';
import { projectConfigSchema } from './schema.js';

/** The JSON Schema of the project config, generated from the zod schema. */
export function projectConfigJsonSchema(): Record<string, unknown> {
  return {
    title: 'switchyard project config',
    ...z.toJSONSchema(projectConfigSchema, { io: 'input', unrepresentable: 'any' }),
  };
}
