import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** The version of @switchyard/cli, read from its package.json (works from src and dist). */
export const version: string = (require('../package.json') as { version: string }).version;
