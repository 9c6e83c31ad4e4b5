import { cosmiconfig } from 'cosmiconfig';
import { issuesToProblems } from '../catalog/issues.js';
import { SwitchyardError } from '../errors.js';
import { type ProjectConfig, projectConfigSchema } from './schema.js';

/** Where the config may live, per directory, first match wins (cosmiconfig's set plus JSON/YAML `switchyard.config.*`). */
export const CONFIG_SEARCH_PLACES = [
  'package.json',
  '.switchyardrc',
  '.switchyardrc.json',
  '.switchyardrc.yaml',
  '.switchyardrc.yml',
  '.switchyardrc.js',
  '.switchyardrc.ts',
  '.switchyardrc.mjs',
  '.switchyardrc.cjs',
  'switchyard.config.json',
  'switchyard.config.yaml',
  'switchyard.config.yml',
  'switchyard.config.js',
  'switchyard.config.ts',
  'switchyard.config.mjs',
  'switchyard.config.cjs',
];

/** The loaded project config and the file it came from (none: all defaults). */
export interface LoadedProjectConfig {
  config: ProjectConfig;
  filepath?: string;
}

/**
 * Finds and validates the project config, searching from `searchFrom` upward (cosmiconfig
 * name `switchyard`). No config file means every default. An invalid file throws
 * SY_CONFIG_INVALID listing every problem with its dotted path.
 */
export async function loadProjectConfig(searchFrom: string): Promise<LoadedProjectConfig> {
  const explorer = cosmiconfig('switchyard', {
    searchStrategy: 'global',
    searchPlaces: CONFIG_SEARCH_PLACES,
  });
  let result: Awaited<ReturnType<typeof explorer.search>>;
  try {
    result = await explorer.search(searchFrom);
  } catch (error) {
    const filepath = (error as { filepath?: string }).filepath;
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `The project config could not be read: ${(error as Error).message}`,
      {
        cause: error,
        ...(filepath ? { file: filepath } : {}),
        hint: 'fix the syntax of the config file',
      },
    );
  }
  if (!result || result.isEmpty) {
    return {
      config: projectConfigSchema.parse({}),
      ...(result?.filepath ? { filepath: result.filepath } : {}),
    };
  }
  const parsed = projectConfigSchema.safeParse(result.config, { reportInput: true });
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues, 'SY_CONFIG_INVALID', {
      file: result.filepath,
    });
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `The project config ${result.filepath} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}).`,
      { file: result.filepath, problems, hint: 'fix every listed key' },
    );
  }
  return { config: parsed.data, filepath: result.filepath };
}
