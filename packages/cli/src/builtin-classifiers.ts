import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClassifierPlugin } from '@switchyard/core';
import { loadPlugins, PluginSet } from '@switchyard/runner-kit';
import { BUILTIN_PLUGINS } from './builtin-plugins.js';

/** The built-in classifier plugins (what a run loads before the project's own). */
export async function builtinClassifiers(): Promise<ClassifierPlugin[]> {
  const set = new PluginSet(
    await loadPlugins({
      entries: [],
      fallbackDir: dirname(fileURLToPath(import.meta.url)),
      builtins: BUILTIN_PLUGINS,
    }),
  );
  const classifiers = set.classifiers.list();
  await set.dispose();
  return classifiers;
}
