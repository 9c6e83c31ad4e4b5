import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { findJsonFaults } from '@switchyard/catalog';
import { SwitchyardError } from '@switchyard/core';
import { hasTasksDir, issuesToProblems } from '@switchyard/utils';
import { cosmiconfig } from 'cosmiconfig';
import { nulValuePaths } from './nul-values.js';
import { type ProjectConfig, projectConfigSchema } from './schema.js';
import { configLocator, isYamlFile, syntaxErrorPlace } from './source-positions.js';

/** The config file name to use (JSON; `switchyard.config.mjs` when plugins need code). */
export const RECOMMENDED_CONFIG_FILE = 'switchyard.config.json';

/**
 * Every config file name looked for in a folder. At most one of them may exist per folder
 * (two is an error naming both); `package.json` counts only when it has a `"switchyard"` key.
 */
export const CONFIG_SEARCH_PLACES = [
  'switchyard.config.json',
  'switchyard.config.yaml',
  'switchyard.config.yml',
  'switchyard.config.js',
  'switchyard.config.mjs',
  'switchyard.config.cjs',
  'switchyard.config.ts',
  '.switchyardrc',
  '.switchyardrc.json',
  '.switchyardrc.yaml',
  '.switchyardrc.yml',
  '.switchyardrc.js',
  '.switchyardrc.mjs',
  '.switchyardrc.cjs',
  '.switchyardrc.ts',
  'package.json',
];

/** The loaded project config and the file it came from (none: all defaults). */
export interface LoadedProjectConfig {
  config: ProjectConfig;
  filepath?: string;
  /** The config as written in the file (before defaults), for telling values' origins. */
  raw?: Record<string, unknown>;
}

/** Options of {@link loadProjectConfig}. */
export interface LoadProjectConfigOptions {
  /**
   * The last folder searched (inclusive). Default: the workspace root above `searchFrom`
   * (the nearest folder holding `agent-task/` or `.git`), else `searchFrom` alone.
   */
  stopDir?: string;
}

const hasSwitchyardKey = (packageJson: string): boolean => {
  try {
    const parsed: unknown = JSON.parse(readFileSync(packageJson, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && 'switchyard' in parsed;
  } catch {
    return false;
  }
};

/** The config files present in one folder (package.json only with a "switchyard" key). */
export function configFilesIn(dir: string): string[] {
  return CONFIG_SEARCH_PLACES.map((name) => join(dir, name)).filter(
    (path) => existsSync(path) && (basename(path) !== 'package.json' || hasSwitchyardKey(path)),
  );
}

/** True when `dir` holds a switchyard config file (package.json aside): it marks a workspace. */
export function hasConfigFile(dir: string): boolean {
  return configFilesIn(dir).some((path) => basename(path) !== 'package.json');
}

/** The default last folder of the search: the nearest workspace or git root, else `from`. */
function defaultStopDir(from: string): string {
  let dir = from;
  for (;;) {
    if (hasTasksDir(dir) || existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return from;
    dir = parent;
  }
}

/**
 * Finds the one config file from `searchFrom` upward to `stopDir` (inclusive; never above
 * the workspace root, so no config code above the workspace is ever run). Throws
 * SY_CONFIG_INVALID when one folder holds two config files.
 */
export function findConfigFile(searchFrom: string, stopDir?: string): string | undefined {
  let dir = resolve(searchFrom);
  const stop = resolve(stopDir ?? defaultStopDir(dir));
  for (;;) {
    const found = configFilesIn(dir);
    if (found.length > 1) {
      throw new SwitchyardError(
        'SY_CONFIG_INVALID',
        `Two config files in one folder: ${found.join(' and ')}.`,
        {
          file: found[0],
          hint: `keep one (${RECOMMENDED_CONFIG_FILE} is recommended) and delete the other`,
        },
      );
    }
    if (found.length === 1) return found[0];
    const parent = dirname(dir);
    if (dir === stop || parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The line of a config's syntax error when the parsers' positions place none (see
 * {@link syntaxErrorPlace}): the YAML reader's mark (0-based), else for JSON the line a newer
 * JSON parser's message names, else the first fault a position-keeping parser finds.
 * Undefined for other errors (a config module that throws).
 */
function syntaxErrorLine(error: unknown, filepath: string): number | undefined {
  const mark = (error as { mark?: { line?: unknown } } | undefined)?.mark;
  if (typeof mark?.line === 'number') return mark.line + 1;
  if (isYamlFile(filepath)) return undefined;
  const message = error instanceof Error ? error.message : '';
  const named = /\(line (\d+) column \d+\)/.exec(message);
  if (named) return Number(named[1]);
  try {
    return findJsonFaults(readFileSync(filepath, 'utf8'))[0]?.line ?? 1;
  } catch {
    return undefined;
  }
}

/** What the parser said, without the "YAML Error in <file>:" line the config loader adds. */
function syntaxReason(error: unknown): string {
  const reason = (error as { reason?: unknown } | undefined)?.reason;
  if (typeof reason === 'string' && reason !== '') return reason;
  const message = error instanceof Error ? error.message : String(error);
  const lines = message.split('\n').filter((l) => l.trim() !== '' && !/ Error in .*:$/.test(l));
  return lines[0] ?? message;
}

/** YAML holding nothing but comments, blank lines and markers: an empty config, like an empty file. */
function onlyYamlComments(filepath: string): boolean {
  try {
    return readFileSync(filepath, 'utf8')
      .split(/\r\n|\r|\n/)
      .every((line) => /^\s*(#.*)?$|^(---|\.\.\.)\s*(#.*)?$/.test(line.replace(/^\uFEFF/, '')));
  } catch {
    return false;
  }
}

/**
 * Finds and validates the project config: the one config file from `searchFrom` upward to
 * the workspace root (see {@link findConfigFile}). No config file means every default. An
 * invalid file throws SY_CONFIG_INVALID listing every problem with its dotted path.
 */
export async function loadProjectConfig(
  searchFrom: string,
  opts: LoadProjectConfigOptions = {},
): Promise<LoadedProjectConfig> {
  const filepath = findConfigFile(searchFrom, opts.stopDir);
  if (!filepath) return { config: projectConfigSchema.parse({}) };
  // The YAML parser refuses a stream without a document; a commented-out config is empty.
  if (isYamlFile(filepath) && onlyYamlComments(filepath))
    return { config: projectConfigSchema.parse({}), filepath };
  const explorer = cosmiconfig('switchyard', { searchStrategy: 'none' });
  let result: Awaited<ReturnType<typeof explorer.load>>;
  try {
    result = await explorer.load(filepath);
  } catch (error) {
    const place = syntaxErrorPlace(error, filepath);
    const line = place?.line ?? syntaxErrorLine(error, filepath);
    const hint = 'fix the syntax of the config file';
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `The project config ${filepath} could not be read: ${(error as Error).message}`,
      {
        cause: error,
        file: filepath,
        ...(line ? { line } : {}),
        hint,
        ...(place
          ? {
              problems: [
                {
                  code: 'SY_CONFIG_INVALID' as const,
                  message: `syntax error: ${syntaxReason(error)}`,
                  file: filepath,
                  ...place,
                  hint,
                },
              ],
            }
          : {}),
      },
    );
  }
  if (!result || result.isEmpty) return { config: projectConfigSchema.parse({}), filepath };
  const nul = nulValuePaths(result.config);
  if (nul.length > 0)
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `The project config ${filepath} holds a NUL character (${nul.map((p) => `\`${p}\``).join(', ')}).`,
      {
        file: filepath,
        problems: nul.map((path) => ({
          code: 'SY_CONFIG_INVALID' as const,
          message: 'the key or value holds a NUL character',
          file: filepath,
          path,
          hint: 'remove it (a binary paste or a stray \\0 / \\u0000 escape)',
        })),
        hint: 'remove the NUL characters: a config is UTF-8 text',
      },
    );
  const parsed = projectConfigSchema.safeParse(result.config, { reportInput: true });
  if (!parsed.success) {
    const locate = configLocator(filepath);
    const problems = issuesToProblems(parsed.error.issues, 'SY_CONFIG_INVALID', {
      file: filepath,
      schema: projectConfigSchema,
      keysRef: 'every key: the project config table of the @switchyard/core README',
      values: true,
      ...(locate ? { locate } : {}),
    });
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `The project config ${filepath} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}).`,
      { file: filepath, problems, hint: 'fix every listed key' },
    );
  }
  return { config: parsed.data, filepath, raw: result.config as Record<string, unknown> };
}
