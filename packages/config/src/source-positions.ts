// Where in a config file a problem is, from the parser of its format: the `yaml` package's
// nodes for YAML, the tolerant JSON parser's for JSON. A JS/TS config has no text to point in.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type JsonLocator, jsonLocator } from '@switchyard/catalog';
import type { Problem } from '@switchyard/core';
import { type YamlLocator, yamlLocator } from '@switchyard/tasks';
import { shownSource } from '@switchyard/utils';

/** A YAML config file: `.yaml`, `.yml` or no extension (`.switchyardrc`). */
export const isYamlFile = (filepath: string) => !/\.(json|[cm]?[jt]s)$/.test(filepath);

/** A JSON config file (`package.json` included: its config is the `"switchyard"` key). */
const isJsonFile = (filepath: string) => /\.json$/.test(filepath);

/** The line and column of a path in the config (of `key: true`, the key itself). */
export type Locate = (
  path: readonly PropertyKey[],
  options: { key: boolean },
) => { line: number; column: number } | undefined;

function readText(filepath: string): string | undefined {
  try {
    return readFileSync(filepath, 'utf8');
  } catch {
    return undefined;
  }
}

/** A parser's locator, or undefined where it cannot be had (the parser gave up: too deep). */
function locatorOf(filepath: string, text: string): JsonLocator | YamlLocator | undefined {
  try {
    if (isJsonFile(filepath)) return jsonLocator(text);
    return isYamlFile(filepath) ? yamlLocator(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The config's own object inside the file: the `"switchyard"` key of a package.json. */
const configRoot = (filepath: string): string[] =>
  basename(filepath) === 'package.json' ? ['switchyard'] : [];

/** Locates paths of the config object in its file; undefined for a JS/TS config. */
export function configLocator(filepath: string): Locate | undefined {
  const text = readText(filepath);
  const locator = text === undefined ? undefined : locatorOf(filepath, text);
  if (!locator) return undefined;
  const root = configRoot(filepath);
  return (path, options) => locator.at([...root, ...path], options);
}

/** The line of text holding `offset` (the text around a syntax error). */
function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end < 0 ? text.length : end);
}

/** A dotted path inside the config object, or undefined outside it (package.json's other keys). */
function configPath(filepath: string, path: readonly PropertyKey[]): string | undefined {
  const root = configRoot(filepath);
  if (!root.every((step, i) => path[i] === step)) return undefined;
  const inside = path.slice(root.length).map(String);
  return inside.length > 0 ? inside.join('.') : undefined;
}

/**
 * Where a config's syntax error is, by the positions of the parser that reports it: the YAML
 * reader's mark (its line, column and offset), else for a second YAML document the offset the
 * `yaml` parser reports it at; for JSON the first error of the tolerant JSON parser. With the
 * path the error is under and the text there. Undefined when none of them places it.
 */
export function syntaxErrorPlace(
  error: unknown,
  filepath: string,
): Pick<Problem, 'line' | 'column' | 'path' | 'value'> | undefined {
  const text = readText(filepath);
  const locator = text === undefined ? undefined : locatorOf(filepath, text);
  if (text === undefined || !locator) return undefined;
  let offset: number | undefined;
  let token: string | undefined;
  if ('pathAt' in locator) {
    const mark = (error as { mark?: { position?: unknown } } | undefined)?.mark;
    offset = typeof mark?.position === 'number' ? mark.position : locator.secondDocumentAt();
  } else if (locator.syntaxError) {
    offset = locator.syntaxError.offset;
    token = text.slice(offset, offset + locator.syntaxError.length);
  }
  if (offset === undefined) return undefined;
  const { line, column } = locator.positionAt(offset);
  const path = configPath(
    filepath,
    'pathAt' in locator ? locator.pathAt(offset) : (locator.syntaxError?.path ?? []),
  );
  const value = shownSource(token || lineAt(text, offset));
  return {
    line,
    column,
    ...(path !== undefined ? { path } : {}),
    ...(value !== undefined ? { value } : {}),
  };
}
