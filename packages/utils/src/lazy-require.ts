import { createRequire } from 'node:module';

/**
 * A dependency loaded on first use (its CommonJS build, synchronously). For libraries only
 * some inputs need — the Markdown and YAML parsers when no plan is cached, luxon for catalogs
 * with time windows — so commands that never touch them start faster (each costs tens of
 * milliseconds to load). `from` is the importing module's URL (`import.meta.url`): the
 * dependency resolves from the package that declares it.
 */
export function lazyRequire<T>(id: string, from: string = import.meta.url): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= createRequire(from)(id) as T;
    return loaded;
  };
}
