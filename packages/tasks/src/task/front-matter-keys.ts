import type { PlanFrontMatter } from '@switchyard/core';
import { ROUTE_IDS } from '@switchyard/core';
import { unknownKeyHint } from '@switchyard/utils';
import type { FrontMatterPair } from './front-matter-pairs.js';

/** The front matter keys a PLAN may use; any other key is an error (a typo must not drop a dependency). */
export const FRONT_MATTER_KEYS = [
  'route',
  'depends_on',
  'target',
  'max_plan_loops',
  // A YAML plan's task materialized as PLAN.md (see ../orchestrate): how it runs and lands.
  'apply',
  'runner',
  'command',
  'shell',
  'complexity',
  'risk',
  'tests',
  'review',
  'write_set',
] as const;
type FrontMatterKey = (typeof FRONT_MATTER_KEYS)[number];

/** Keys that make the dispatcher run a command: only in a human-written PLAN.md, never a follow-up. */
const COMMAND_KEYS = new Set(['runner', 'command', 'shell']);
/** `complexity:` values: the config's `routing.complexity` maps each to a route. */
export const COMPLEXITIES = ['routine', 'standard', 'complex'] as const;
/** `risk:` values: the config's `routing.risk` maps each to a route and/or review mode. */
export const RISKS = ['low', 'high'] as const;

const ROUTES = new Set<string>(ROUTE_IDS);

/** Reports one problem of the front matter at a file line. */
export type ReportFrontMatterProblem = (
  message: string,
  line: number | undefined,
  hint?: string,
) => void;

/** What a key's reader writes to and reports through; `required` is true for `PLAN.md`. */
interface KeyContext {
  frontMatter: PlanFrontMatter;
  err: ReportFrontMatterProblem;
  required: boolean;
}

type KeyReader = (pair: FrontMatterPair, scalar: unknown, ctx: KeyContext) => void;

/**
 * Validates one top-level pair into `frontMatter` (recording its line), reporting an unknown
 * key, a command key in a follow-up plan or a value the key does not take.
 */
export function readFrontMatterPair(pair: FrontMatterPair, ctx: KeyContext): void {
  const { key, line, value } = pair;
  if (!ctx.required && COMMAND_KEYS.has(key)) {
    ctx.err(
      `"${key}" is not allowed in a follow-up plan`,
      line,
      'commands run only from a PLAN.md a human wrote (or a YAML plan); remove the key',
    );
    return;
  }
  if (!isFrontMatterKey(key)) {
    ctx.err(`unknown front matter key "${key}"`, line, unknownKeyHint(key, FRONT_MATTER_KEYS));
    return;
  }
  ctx.frontMatter.lines[key] = line;
  KEY_READERS[key](pair, value?.kind === 'scalar' ? value.value : undefined, ctx);
}

function isFrontMatterKey(key: string): key is FrontMatterKey {
  return Object.hasOwn(KEY_READERS, key);
}

const readRoute: KeyReader = ({ line }, scalar, { frontMatter, err }) => {
  if (typeof scalar !== 'string' || !ROUTES.has(scalar))
    err(
      `route ${JSON.stringify(scalar ?? null)} is not a route id`,
      line,
      `use one of local-G01…local-G10, cloud-G01…cloud-G10`,
    );
  else frontMatter.route = scalar;
};

const readDependsOn: KeyReader = ({ line, value }, _scalar, { frontMatter, err }) => {
  if (value === null || (value.kind === 'scalar' && value.value === null)) return;
  if (value.kind !== 'seq') {
    err('depends_on must be a list', line, 'write `depends_on: [other-task, other-group/task]`');
    return;
  }
  for (const item of value.items) {
    const v = item.value;
    if (typeof v !== 'string' || v.trim() === '')
      err('depends_on entries must be non-empty strings', item.line ?? line);
    else frontMatter.dependsOn.push({ raw: v.trim(), line: item.line ?? line });
  }
};

const readTarget: KeyReader = ({ line }, scalar, { frontMatter, err }) => {
  if (typeof scalar !== 'string' || scalar.trim() === '')
    err('target must be a catalog target id (string)', line);
  else frontMatter.target = scalar.trim();
};

const readMaxPlanLoops: KeyReader = ({ line }, scalar, { frontMatter, err }) => {
  if (typeof scalar !== 'number' || !Number.isInteger(scalar) || scalar < 1)
    err('max_plan_loops must be a positive integer', line, 'e.g. `max_plan_loops: 3`');
  else frontMatter.maxPlanLoops = scalar;
};

/** `apply: source | patch`: whether the result lands in the source or stays a patch. */
const readApply: KeyReader = ({ line }, scalar, { frontMatter, err }) => {
  if (scalar === 'source' || scalar === 'patch') frontMatter.apply = scalar;
  else err('apply must be "source" or "patch"', line, '`apply: patch` keeps the diff as a patch');
};

const readRunner: KeyReader = ({ line }, scalar, { frontMatter, err }) => {
  if (scalar === 'local' || scalar === 'agent') frontMatter.runner = scalar;
  else err('runner must be "local" or "agent"', line, '`runner: local` runs `command`, no agent');
};

const readShell: KeyReader = ({ line }, scalar, { frontMatter, err }) => {
  if (typeof scalar === 'boolean') frontMatter.shell = scalar;
  else err('shell must be true or false', line);
};

const readCommand: KeyReader = ({ line, value }, _scalar, { frontMatter, err }) => {
  if (
    value?.kind === 'seq' &&
    value.items.length > 0 &&
    value.items.every((i) => typeof i.value === 'string')
  )
    frontMatter.command = value.items.map((i) => i.value as string);
  else
    err(
      'command must be a non-empty list of strings (argv)',
      line,
      'e.g. `command: [node, x.mjs]`',
    );
};

/** `complexity:` and `risk:` stand in for a route: one of their listed values. */
function enumReader(key: 'complexity' | 'risk', allowed: readonly string[]): KeyReader {
  return ({ line }, scalar, { frontMatter, err }) => {
    if (typeof scalar !== 'string' || !allowed.includes(scalar))
      err(
        `${key} ${JSON.stringify(scalar ?? null)} is not one of ${allowed.join(', ')}`,
        line,
        `write \`${key}: ${allowed[0]}\` (the config's \`routing\` maps it to a route)`,
      );
    else if (key === 'complexity') frontMatter.complexity = scalar as (typeof COMPLEXITIES)[number];
    else frontMatter.risk = scalar as (typeof RISKS)[number];
  };
}

/** A key with one accepted value (a mode switched on by naming it). */
function oneValueKey(
  key: 'tests' | 'review',
  value: 'required' | 'red-team',
  what: string,
  hint: string,
): KeyReader {
  return ({ line }, scalar, { frontMatter, err }) => {
    if (scalar !== value)
      err(`${key} ${JSON.stringify(scalar ?? null)} is not ${what}`, line, hint);
    else Object.assign(frontMatter, { [key]: value });
  };
}

const readTests = oneValueKey(
  'tests',
  'required',
  'a test policy',
  '`tests: required` rejects a change that adds or changes no test, and a definition of done whose runner reports zero tests',
);

const readReview = oneValueKey(
  'review',
  'red-team',
  'a review mode',
  '`review: red-team` adds an adversarial second review by another agent family',
);

const readWriteSet: KeyReader = ({ line }, scalar, { frontMatter, err, required }) => {
  if (!required)
    err(
      '"write_set" is only for PLAN.md',
      line,
      'a follow-up plan keeps the write set of PLAN.md; remove the key',
    );
  else if (scalar !== 'any')
    err(
      `write_set ${JSON.stringify(scalar ?? null)} is not a write-set mode`,
      line,
      '`write_set: any` lets the task change any file of its worktree (worktree isolation only); otherwise list the files under `## Modified Files Summary`',
    );
  else frontMatter.writeSet = 'any';
};

/** One reader per key: the only place a key's accepted values are spelled. */
const KEY_READERS: Record<FrontMatterKey, KeyReader> = {
  route: readRoute,
  depends_on: readDependsOn,
  target: readTarget,
  max_plan_loops: readMaxPlanLoops,
  apply: readApply,
  runner: readRunner,
  command: readCommand,
  shell: readShell,
  complexity: enumReader('complexity', COMPLEXITIES),
  risk: enumReader('risk', RISKS),
  tests: readTests,
  review: readReview,
  write_set: readWriteSet,
};
