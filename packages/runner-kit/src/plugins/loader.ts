import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type Problem,
  SwitchyardError,
  type SwitchyardPlugin,
  validatePlugin,
} from '@switchyard/core';

/** A config `plugins` entry: `'name'`, `'./path.mjs'` or `['specifier', options]`. */
export type PluginEntry = string | readonly [string, unknown];

/** A plugin as loaded, with where it came from. */
export interface LoadedPlugin {
  plugin: SwitchyardPlugin;
  /** The specifier as written in the config (or the built-in package name). */
  specifier: string;
  /** `builtin` for the CLI's default plugins, else `config`. */
  source: 'builtin' | 'config';
  /** Absolute path of the module file. */
  file: string;
  /** meta.version, else the package.json version of a package specifier. */
  version: string | undefined;
}

export interface LoadPluginsOptions {
  /** Entries from the project config. */
  entries: readonly PluginEntry[];
  /** Directory of the config file: specifiers resolve from here first. */
  configDir?: string;
  /** The CLI's own directory: fallback for resolution, and where built-ins resolve from. */
  fallbackDir: string;
  /** Built-in plugin package names, loaded before the config's entries. */
  builtins?: readonly string[];
  /** Config file path for problem locations. */
  configFile?: string;
}

const isPath = (spec: string) => spec.startsWith('.') || isAbsolute(spec);

function resolveSpecifier(spec: string, dirs: readonly string[]): string {
  // a path may name a file or a package directory (its package.json main/exports decide)
  if (isPath(spec))
    return createRequire(join(dirs[0]!, 'noop.js')).resolve(resolve(dirs[0]!, spec));
  let last: unknown;
  for (const dir of dirs) {
    try {
      return createRequire(join(dir, 'noop.js')).resolve(spec);
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

function packageVersion(spec: string, file: string, dirs: readonly string[]): string | undefined {
  if (isPath(spec)) return undefined;
  try {
    const pkgFile = resolveSpecifier(`${spec}/package.json`, dirs);
    return (JSON.parse(readFileSync(pkgFile, 'utf8')) as { version?: string }).version;
  } catch {
    void file;
    return undefined;
  }
}

/** Unwraps `default` (twice, for CJS), calls a factory with the options, flattens arrays. */
function unwrap(module: unknown, options: unknown): unknown[] {
  let value = module as { default?: unknown } | undefined;
  for (let i = 0; i < 2 && value && typeof value === 'object' && 'default' in value; i++) {
    value = value.default as typeof value;
  }
  const made = typeof value === 'function' ? (value as (o: unknown) => unknown)(options) : value;
  return Array.isArray(made) ? made : [made];
}

/**
 * Loads built-in plugins, then the config's entries, resolving each specifier from the config
 * file's directory (falling back to the CLI's own). Every failing entry is reported (by name
 * and reason) in one SY_PLUGIN_LOAD error.
 */
export async function loadPlugins(options: LoadPluginsOptions): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  const problems: Problem[] = [];
  const work: {
    entry: PluginEntry;
    source: LoadedPlugin['source'];
    dirs: string[];
    index: number;
  }[] = [
    ...(options.builtins ?? []).map((entry, index) => ({
      entry,
      source: 'builtin' as const,
      dirs: [options.fallbackDir],
      index,
    })),
    ...options.entries.map((entry, index) => ({
      entry,
      source: 'config' as const,
      dirs: [options.configDir ?? options.fallbackDir, options.fallbackDir],
      index,
    })),
  ];
  for (const { entry, source, dirs, index } of work) {
    const [spec, pluginOptions] = typeof entry === 'string' ? [entry, undefined] : entry;
    const where = {
      ...(source === 'config' && options.configFile ? { file: options.configFile } : {}),
      path: source === 'config' ? `plugins.${index}` : `builtin.${spec}`,
    };
    try {
      const file = resolveSpecifier(spec, dirs);
      const items = unwrap(await import(pathToFileURL(file).href), pluginOptions);
      items.forEach((item, i) => {
        const checked = validatePlugin(item);
        if ('problems' in checked) {
          const label = items.length > 1 ? `${spec} [${i}]` : spec;
          for (const message of checked.problems) {
            problems.push({
              code: 'SY_PLUGIN_LOAD',
              ...where,
              message: `plugin "${label}": ${message}`,
              hint: 'A plugin must export a definePlugin/defineRunner/defineClassifier/defineTranscript object (or an array, or a factory returning them).',
            });
          }
          return;
        }
        const version = checked.plugin.meta.version ?? packageVersion(spec, file, dirs);
        loaded.push({ plugin: checked.plugin, specifier: spec, source, file, version });
      });
    } catch (cause) {
      problems.push({
        code: 'SY_PLUGIN_LOAD',
        ...where,
        message: `Failed to load plugin "${spec}": ${(cause as Error).message?.split('\n')[0] ?? String(cause)}`,
        hint: isPath(spec)
          ? `Check that ${resolve(dirs[0]!, spec)} exists and imports cleanly.`
          : `Install it next to the config: npm install -D ${spec}`,
      });
    }
  }
  if (problems.length > 0) {
    throw new SwitchyardError(
      'SY_PLUGIN_LOAD',
      `${problems.length} plugin problem${problems.length === 1 ? '' : 's'}.`,
      {
        problems,
        ...(options.configFile ? { file: options.configFile } : {}),
        hint: 'Fix or remove the listed plugins entries.',
      },
    );
  }
  return loaded;
}
