// Shared by the catalog and the project config (neither imports the other for it).

import type { Problem, SwitchyardErrorCode } from '@switchyard/core/errors';
import type { z } from 'zod';
import { closestName } from './did-you-mean.js';
import { knownKeysAt } from './schema-keys.js';
import { shownValue } from './shown-value.js';

/** Dotted JSON path: `routes.worker.cloud-G01.candidates.0`. */
export function dottedPath(path: readonly PropertyKey[], prefix?: string): string {
  const parts = path.map(String);
  return [prefix, ...parts].filter((p) => p !== undefined && p !== '').join('.');
}

function hintFor(issue: z.core.$ZodIssue): string | undefined {
  const params = (issue as { params?: { hint?: unknown } }).params;
  if (typeof params?.hint === 'string') return params.hint;
  switch (issue.code) {
    case 'unrecognized_keys':
      return 'remove the key (unknown keys are rejected everywhere)';
    case 'invalid_type':
      return `give a value of type ${issue.expected === 'record' ? 'object' : issue.expected}`;
    case 'invalid_key':
      return 'rename the key';
    case 'invalid_value':
      return `use one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      if (isNumeric(issue.origin))
        return `give a number ${issue.inclusive === false ? 'greater than' : 'of at least'} ${String(issue.minimum)}`;
      return issue.origin === 'array' ? 'give at least one element' : 'give a non-empty value';
    case 'too_big':
      if (isNumeric(issue.origin))
        return `give a number ${issue.inclusive === false ? 'less than' : 'of at most'} ${String(issue.maximum)}`;
      if (issue.origin === 'string') return `give at most ${String(issue.maximum)} characters`;
      return issue.origin === 'array'
        ? `give at most ${String(issue.maximum)} elements`
        : undefined;
    case 'invalid_format':
      return `fix the format: ${issue.message}`;
    default:
      return undefined;
  }
}

const isNumeric = (origin: string) =>
  origin === 'number' || origin === 'int' || origin === 'bigint';

const isMissing = (issue: z.core.$ZodIssue) =>
  (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
  (issue as { input?: unknown }).input === undefined;

function messageFor(issue: z.core.$ZodIssue): string {
  if (isMissing(issue)) {
    return `missing required key "${String(issue.path.at(-1) ?? '')}"`;
  }
  if (issue.code === 'invalid_key') {
    const inner = issue.issues.map((i) => i.message).join('; ');
    return `invalid key "${String(issue.path.at(-1) ?? '')}"${inner ? `: ${inner}` : ''}`;
  }
  if (issue.code === 'invalid_type' && issue.expected === 'record') {
    return issue.message.replace('expected record', 'expected an object');
  }
  if (issue.code === 'unrecognized_keys') {
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  }
  return issue.message;
}

/** Where a list of every allowed key is too long to print, the hint names this instead. */
const MAX_LISTED_KEYS = 20;

/**
 * The hint of an unknown key: the known key it was probably meant to be, and the keys allowed
 * where it stands (or, when they are many, `keysRef`: where they are all described).
 */
export function unknownKeyHint(key: string, known: readonly string[], keysRef?: string): string {
  const near = closestName(key, known);
  const allowed =
    known.length > 0 && known.length <= MAX_LISTED_KEYS
      ? `allowed keys: ${known.join(', ')}`
      : keysRef;
  return `${near ? `did you mean "${near}"? rename it` : 'remove the key'}${allowed ? `; ${allowed}` : ''}`;
}

/** Options of {@link issuesToProblems}. */
export interface IssuesToProblemsOptions {
  file?: string;
  /** Put before every path (e.g. the config key an inline catalog sits under). */
  prefix?: string;
  /** The hint of an issue that has none of its own. */
  defaultHint?: string;
  /** The schema that was checked: an unknown key's hint names the key it was probably meant
   * to be ("did you mean") and the keys allowed there. */
  schema?: z.ZodType;
  /** Where every key is described, named when the allowed keys are too many to list. */
  keysRef?: string;
  /**
   * Puts the offending value on each problem (`value`: cut, a secret redacted; see
   * `shownValue`). Needs the schema checked with `{ reportInput: true }`.
   */
  values?: boolean;
  /**
   * The line (and column) of a path in the source text: the value at it, or with `key` the
   * key itself (an unknown key). A missing key is looked up by its own path.
   */
  locate?: (
    path: readonly PropertyKey[],
    options: { key: boolean },
  ) => { line: number; column?: number } | undefined;
}

/** The input an issue reports (with `reportInput`); an unknown key's is the value under it. */
function offendingValue(issue: z.core.$ZodIssue, key?: string): unknown {
  const input = (issue as { input?: unknown }).input;
  if (key === undefined) return input;
  return typeof input === 'object' && input !== null && Object.hasOwn(input, key)
    ? (input as Record<string, unknown>)[key]
    : undefined;
}

/** Turns zod issues into problems with dotted paths and hints. */
export function issuesToProblems(
  issues: readonly z.core.$ZodIssue[],
  code: SwitchyardErrorCode,
  opts: IssuesToProblemsOptions = {},
): Problem[] {
  const make = (issue: z.core.$ZodIssue, keyPath: readonly PropertyKey[], message: string) => {
    const path = dottedPath(keyPath, opts.prefix);
    const unknownKey = issue.code === 'unrecognized_keys' ? String(keyPath.at(-1)) : undefined;
    const missing = isMissing(issue);
    const hint = missing
      ? 'add the key'
      : unknownKey !== undefined && opts.schema
        ? unknownKeyHint(unknownKey, knownKeysAt(opts.schema, issue.path), opts.keysRef)
        : (hintFor(issue) ?? opts.defaultHint);
    const at = opts.locate?.(keyPath, { key: unknownKey !== undefined });
    const value =
      opts.values && !missing
        ? shownValue(
            offendingValue(issue, unknownKey),
            keyPath.findLast((step) => typeof step === 'string'),
          )
        : undefined;
    return {
      code,
      message,
      ...(opts.file ? { file: opts.file } : {}),
      ...(at ? { line: at.line, ...(at.column ? { column: at.column } : {}) } : {}),
      ...(path ? { path } : {}),
      ...(value !== undefined ? { value } : {}),
      ...(hint ? { hint } : {}),
    } satisfies Problem;
  };
  // One problem per unknown key, located at the key itself.
  return unionBranches(issues).flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => make(issue, [...issue.path, key], `unknown key "${key}"`))
      : [make(issue, issue.path, messageFor(issue))],
  );
}

/**
 * A union's "Invalid input" replaced by the issues of the one branch whose type the value
 * has (a string against `"a" | {…}` is judged by the enum, an object by the object), so the
 * problem names the key and the allowed values; unchanged when no single branch fits.
 */
function unionBranches(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union') return [issue];
    // A branch with no problem at the value itself fits best (an object against `{…}`), then
    // one whose problem there is not a wrong type (a string against an enum).
    const atRoot = (branch: z.core.$ZodIssue[], test: (i: z.core.$ZodIssue) => boolean) =>
      branch.some((i) => i.path.length === 0 && test(i));
    const inner = issue.errors.filter((branch) => !atRoot(branch, () => true));
    const typed = issue.errors.filter(
      (branch) => !atRoot(branch, (i) => i.code === 'invalid_type'),
    );
    const fitting = inner.length === 1 ? inner : typed;
    if (fitting.length !== 1) return [issue];
    return unionBranches(
      fitting[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue),
    );
  });
}
