import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A dependency loaded on first use (its CommonJS build, synchronously). For libraries only
 * some inputs need — the Markdown and YAML parsers when no plan is cached, luxon for catalogs
 * with time windows — so commands that never touch them start faster (each costs tens of
 * milliseconds to load).
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(id) as T;
    return loaded;
  };
}
