import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Problem, SwitchyardError } from '@switchyard/core';
import { assetPath } from '@switchyard/utils';
import { CATALOG_ENV } from './catalog-env.js';
import { anchorRelativeCommands, commandBaseOf } from './command-base.js';
import { loaderVariableWarnings } from './loader-variables.js';
import { catalogRevision } from './revision.js';
import type { Catalog } from './schema.js';
import {
  decodeUtf8Strict,
  findJsonFaults,
  jsonNestingFault,
  MAX_JSON_DEPTH,
} from './strict-json.js';
import { validateCatalog } from './validate.js';

/** Where a resolved catalog came from, in resolution order. */
export type CatalogSourceKind = 'flag' | 'env' | 'config' | 'bundled';

/** A validated catalog with its revision and source; every decision records the latter two. */
export interface ResolvedCatalog {
  catalog: Catalog;
  /** SHA-256 (64 hex) of the canonical catalog. */
  revision: string;
  /** `path` is the catalog file, or the config file for an inline catalog. */
  source: { kind: CatalogSourceKind; path?: string; inline?: boolean };
  /** Lint warnings of a valid catalog (loader variables in `environment`). */
  warnings?: Problem[];
}

/** The project config's `executionCatalog` entry and the config file it came from. */
export interface ProjectCatalogEntry {
  executionCatalog?: unknown;
  filepath?: string | undefined;
}

/** Options of {@link resolveCatalogFrom}. */
export interface ResolveCatalogOptions {
  /** `--execution-catalog`, relative to `cwd`. */
  flagPath?: string;
  /** Reads AGENT_TASK_EXECUTION_CATALOG (relative to `cwd`) and PATH; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Working directory: relative paths and the project-config search start here. */
  cwd: string;
  /** Check `command[0]` of every target (default true). */
  checkExecutables?: boolean;
  /** Start of the window-coverage year (default now). */
  now?: Date;
}

async function readCatalogFile(path: string): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new SwitchyardError(
      'SY_CATALOG_NOT_FOUND',
      `Cannot read the execution catalog ${path}.`,
      {
        cause: error,
        file: path,
        hint: 'check the path given by --execution-catalog, AGENT_TASK_EXECUTION_CATALOG or the config key executionCatalog',
      },
    );
  }
  const decoded = decodeUtf8Strict(bytes);
  if ('fault' in decoded)
    throw new SwitchyardError('SY_CATALOG_PARSE', `The execution catalog is not valid UTF-8.`, {
      file: path,
      line: decoded.fault.line,
      problems: [{ code: 'SY_CATALOG_PARSE', file: path, ...decoded.fault }],
      hint: 'save the catalog as UTF-8',
    });
  const text = decoded.text;
  const deep = jsonNestingFault(text);
  if (deep)
    throw new SwitchyardError('SY_CATALOG_PARSE', `The execution catalog is nested too deeply.`, {
      file: path,
      line: deep.line,
      problems: [{ code: 'SY_CATALOG_PARSE', file: path, ...deep }],
      hint: `a catalog nests a few levels (targets → runtime → environment); at most ${MAX_JSON_DEPTH} are read`,
    });
  // JSON.parse keeps the last of duplicate keys silently (a later key can hide a value).
  const faults = findJsonFaults(text);
  const duplicates = faults.filter((f) => f.message.startsWith('duplicate key'));
  if (duplicates.length > 0)
    throw new SwitchyardError(
      'SY_CATALOG_PARSE',
      `The execution catalog has ${duplicates.length} duplicate key${duplicates.length === 1 ? '' : 's'}.`,
      {
        file: path,
        line: duplicates[0]?.line as number,
        problems: duplicates.map((f) => ({ code: 'SY_CATALOG_PARSE' as const, file: path, ...f })),
        hint: 'write each key once per object',
      },
    );
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse's message names no line; the position-keeping scan found the same fault.
    const line = faults[0]?.line ?? 1;
    throw new SwitchyardError(
      'SY_CATALOG_PARSE',
      text.trim() === ''
        ? 'The execution catalog is empty.'
        : `The execution catalog is not valid JSON: ${(error as Error).message}`,
      {
        cause: error,
        file: path,
        line,
        hint: 'fix the JSON syntax (a catalog is one JSON object)',
      },
    );
  }
}

/**
 * Resolves, reads and fully validates the execution catalog. Order: `flagPath` >
 * AGENT_TASK_EXECUTION_CATALOG > project config `executionCatalog` (path relative to the
 * config file, or inline) > the bundled default. Throws SY_CATALOG_* with `.problems`.
 * `projectConfig` reads the config's entry, only when neither flag nor environment names a
 * catalog (a broken config does not stop a run that names its catalog); without it the
 * fallback is the bundled catalog. `@switchyard/config`'s `resolveCatalog` passes the loader.
 */
export async function resolveCatalogFrom(
  opts: ResolveCatalogOptions,
  projectConfig: (() => Promise<ProjectCatalogEntry>) | undefined,
): Promise<ResolvedCatalog> {
  const env = opts.env ?? process.env;
  let source: ResolvedCatalog['source'];
  let raw: unknown;
  let pathPrefix: string | undefined;
  const fromEnv = env[CATALOG_ENV];
  if (opts.flagPath) {
    source = { kind: 'flag', path: resolve(opts.cwd, opts.flagPath) };
  } else if (fromEnv) {
    source = { kind: 'env', path: resolve(opts.cwd, fromEnv) };
  } else {
    const { executionCatalog: entry, filepath } = (await projectConfig?.()) ?? {};
    if (typeof entry === 'string' && filepath) {
      source = { kind: 'config', path: resolve(dirname(filepath), entry) };
    } else if (entry !== undefined && filepath) {
      source = { kind: 'config', path: filepath, inline: true };
      raw = entry;
      pathPrefix = 'executionCatalog';
    } else {
      source = { kind: 'bundled', path: assetPath('default-execution-catalog.json') };
    }
  }
  if (!source.inline) raw = await readCatalogFile(source.path ?? '');
  const { catalog, problems } = validateCatalog(raw, {
    ...(source.path ? { file: source.path } : {}),
    ...(pathPrefix ? { pathPrefix } : {}),
    checkExecutables: opts.checkExecutables ?? true,
    env,
    cwd: commandBaseOf(source.path, opts.cwd),
    ...(opts.now ? { now: opts.now } : {}),
  });
  if (!catalog) throw catalogError(problems, source);
  // Relative commands run from the catalog's folder whatever the cwd or worktree of the
  // caller: anchored once here, every later check and spawn sees the same absolute path.
  const anchored = anchorRelativeCommands(catalog, commandBaseOf(source.path, opts.cwd));
  const warnings = loaderVariableWarnings(catalog, {
    ...(source.path ? { file: source.path } : {}),
    ...(pathPrefix ? { pathPrefix } : {}),
  });
  return {
    catalog: anchored,
    revision: catalogRevision(anchored),
    source,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

function catalogError(problems: Problem[], source: ResolvedCatalog['source']): SwitchyardError {
  const onlyExecutables = problems.every((p) => p.code === 'SY_CATALOG_NOT_EXECUTABLE');
  const n = problems.length;
  return new SwitchyardError(
    onlyExecutables ? 'SY_CATALOG_NOT_EXECUTABLE' : 'SY_CATALOG_INVALID',
    `The execution catalog (${source.kind}${source.path ? ` ${source.path}` : ''}) has ${n} problem${n === 1 ? '' : 's'}.`,
    { problems, ...(source.path ? { file: source.path } : {}) },
  );
}
