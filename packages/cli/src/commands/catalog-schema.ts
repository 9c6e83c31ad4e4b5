import { catalogJsonSchema } from '@switchyard/catalog';
import { projectConfigJsonSchema } from '@switchyard/config';
import { printJson } from '../output.js';

/** `switchyard catalog schema`: the JSON Schema generated from the zod validator. */
export async function catalogSchemaCommand(opts: { projectConfig?: boolean }): Promise<void> {
  printJson(opts.projectConfig ? projectConfigJsonSchema() : catalogJsonSchema());
}
