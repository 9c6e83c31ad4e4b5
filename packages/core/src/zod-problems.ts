// Shared by the catalog and the project config (neither imports the other for it).
import type { z } from 'zod';
import type { Problem, SwitchyardErrorCode } from './errors.js';

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
      return 'remove the key (unknown keys are rejected everywhere; check the spelling against `switchyard catalog schema`)';
    case 'invalid_type':
      return `give a value of type ${issue.expected === 'record' ? 'object' : issue.expected}`;
    case 'invalid_key':
      return 'rename the key';
    case 'invalid_value':
      return `use one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'array' ? 'give at least one element' : 'give a non-empty value';
    case 'invalid_format':
      return `fix the format: ${issue.message}`;
    default:
      return undefined;
  }
}

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

/** Turns zod issues into problems with dotted paths and hints. */
export function issuesToProblems(
  issues: readonly z.core.$ZodIssue[],
  code: SwitchyardErrorCode,
  opts: { file?: string; prefix?: string; defaultHint?: string } = {},
): Problem[] {
  const make = (issue: z.core.$ZodIssue, keyPath: readonly PropertyKey[], message: string) => {
    const path = dottedPath(keyPath, opts.prefix);
    const hint = isMissing(issue) ? 'add the key' : (hintFor(issue) ?? opts.defaultHint);
    return {
      code,
      message,
      ...(opts.file ? { file: opts.file } : {}),
      ...(path ? { path } : {}),
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
