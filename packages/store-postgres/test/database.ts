import { randomBytes } from 'node:crypto';
import { freshDatabase } from '@switchyard/testkit/postgres';
import { inject } from 'vitest';
import { initStore } from '../src/index.js';

/** A database of this test file's own on the run's cluster, initialized like `store init`. */
export async function testDatabase(): Promise<string> {
  const url = await freshDatabase(inject('postgres'));
  await initStore(url);
  return url;
}

/** A fresh scope: an empty store location inside a database. */
export const freshScope = (prefix = 'case'): string =>
  `${prefix}-${randomBytes(4).toString('hex')}`;
