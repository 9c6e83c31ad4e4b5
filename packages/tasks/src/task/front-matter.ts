import type { PlanFrontMatter, Problem } from '@switchyard/core';
import { ROUTE_IDS } from '@switchyard/core';
import { unknownKeyHint } from '@switchyard/utils';
import {
  type FrontMatterPair,
  pairOfYamlNode,
  readSimpleFrontMatter,
  yamlFileLine,
  yamlModule,
} from './front-matter-pairs.js';
import { MAX_YAML_NESTING, yamlNestingLine } from './yaml-nesting.js';

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

/** Keys that make the dispatcher run a command: only in a human-written PLAN.md, never a follow-up. */
const COMMAND_KEYS = new Set(['runner', 'command', 'shell']);
/** `complexity:` values: the config's `routing.complexity` maps each to a route. */
export const COMPLEXITIES = ['routine', 'standard', 'complex'] as const;
/** `risk:` values: the config's `routing.risk` maps each to a route and/or review mode. */
export const RISKS = ['low', 'high'] as const;

const ROUTES = new Set<string>(ROUTE_IDS);

/** A PLAN split into its front matter text and a body whose line numbers match the file. */
export interface SplitPlan {
  /** YAML text between the `---` lines, or undefined when there is none. */
  yaml: string | undefined;
  /** The body, with the front matter lines blanked so node lines equal file lines. */
  body: string;
  /** Line of the closing `---` (0 when there is no front matter). */
  endLine: number;
  /** Set when an opening `---` has no closing line. */
  unterminated: boolean;
}

/** Splits `---` front matter off a PLAN source. */
export function splitFrontMatter(source: string): SplitPlan {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  if (!/^---[ \t]*\r?\n/.test(text))
    return { yaml: undefined, body: text, endLine: 0, unterminated: false };
  // Walk line starts with indexOf instead of splitting the whole file: only the front
  // matter lines are looked at.
  const closing = /^(---|\.\.\.)[ \t]*\r?$/;
  let line = 1; // 0-based index of the line starting at `start`
  for (let start = text.indexOf('\n') + 1; start > 0; line++) {
    const next = text.indexOf('\n', start);
    const end = next < 0 ? text.length : next;
    if (closing.test(text.slice(start, end))) {
      const yamlStart = text.indexOf('\n') + 1;
      return {
        // CRLF files: the last YAML line's `\r` would otherwise end up in its value.
        yaml: text.slice(yamlStart, Math.max(yamlStart, start - 1)).replace(/\r$/, ''),
        body: '\n'.repeat(line + 1) + (next < 0 ? '' : text.slice(next + 1)),
        endLine: line + 1,
        unterminated: false,
      };
    }
    start = next + 1;
  }
  return { yaml: undefined, body: text, endLine: 0, unterminated: true };
}

/**
 * Parses and validates the YAML front matter. `required` is true for `PLAN.md` (route
 * required); follow-up plans may omit it. Every problem is collected.
 */
export function parseFrontMatter(
  yaml: string | undefined,
  file: string,
  required: boolean,
): { frontMatter: PlanFrontMatter; problems: Problem[] } {
  const frontMatter: PlanFrontMatter = { dependsOn: [], lines: {} };
  const problems: Problem[] = [];
  const err = (message: string, line: number | undefined, hint?: string) =>
    problems.push({ code: 'SY_PLAN_INVALID', message, file, line, hint, severity: 'error' });
  if (yaml === undefined) {
    if (required)
      err(
        'missing YAML front matter with a `route`',
        1,
        'start the file with `---`, `route: local-G01`, `---`',
      );
    return { frontMatter, problems };
  }
  const pairs = readSimpleFrontMatter(yaml) ?? readYamlPairs(yaml, err, required);
  if (!pairs) return { frontMatter, problems };
  for (const { key, line, value } of pairs) {
    const scalar = value?.kind === 'scalar' ? value.value : undefined;
    if (!required && COMMAND_KEYS.has(key)) {
      err(
        `"${key}" is not allowed in a follow-up plan`,
        line,
        'commands run only from a PLAN.md a human wrote (or a YAML plan); remove the key',
      );
      continue;
    }
    switch (key) {
      case 'route': {
        frontMatter.lines.route = line;
        if (typeof scalar !== 'string' || !ROUTES.has(scalar))
          err(
            `route ${JSON.stringify(scalar ?? null)} is not a route id`,
            line,
            `use one of local-G01…local-G10, cloud-G01…cloud-G10`,
          );
        else frontMatter.route = scalar;
        break;
      }
      case 'depends_on': {
        frontMatter.lines.depends_on = line;
        if (value === null || (value.kind === 'scalar' && value.value === null)) break;
        if (value.kind !== 'seq') {
          err(
            'depends_on must be a list',
            line,
            'write `depends_on: [other-task, other-group/task]`',
          );
          break;
        }
        for (const item of value.items) {
          const v = item.value;
          if (typeof v !== 'string' || v.trim() === '')
            err('depends_on entries must be non-empty strings', item.line ?? line);
          else frontMatter.dependsOn.push({ raw: v.trim(), line: item.line ?? line });
        }
        break;
      }
      case 'target': {
        frontMatter.lines.target = line;
        if (typeof scalar !== 'string' || scalar.trim() === '')
          err('target must be a catalog target id (string)', line);
        else frontMatter.target = scalar.trim();
        break;
      }
      case 'max_plan_loops': {
        frontMatter.lines.max_plan_loops = line;
        if (typeof scalar !== 'number' || !Number.isInteger(scalar) || scalar < 1)
          err('max_plan_loops must be a positive integer', line, 'e.g. `max_plan_loops: 3`');
        else frontMatter.maxPlanLoops = scalar;
        break;
      }
      case 'apply':
      case 'runner':
      case 'command':
      case 'shell':
        readRunKey(frontMatter, key, line, value, err);
        break;
      case 'complexity':
      case 'risk': {
        frontMatter.lines[key] = line;
        const allowed: readonly string[] = key === 'complexity' ? COMPLEXITIES : RISKS;
        if (typeof scalar !== 'string' || !allowed.includes(scalar))
          err(
            `${key} ${JSON.stringify(scalar ?? null)} is not one of ${allowed.join(', ')}`,
            line,
            `write \`${key}: ${allowed[0]}\` (the config's \`routing\` maps it to a route)`,
          );
        else if (key === 'complexity')
          frontMatter.complexity = scalar as (typeof COMPLEXITIES)[number];
        else frontMatter.risk = scalar as (typeof RISKS)[number];
        break;
      }
      case 'tests': {
        frontMatter.lines.tests = line;
        if (scalar !== 'required')
          err(
            `tests ${JSON.stringify(scalar ?? null)} is not a test policy`,
            line,
            '`tests: required` rejects a change that adds or changes no test, and a definition of done whose runner reports zero tests',
          );
        else frontMatter.tests = 'required';
        break;
      }
      case 'review': {
        frontMatter.lines.review = line;
        if (scalar !== 'red-team')
          err(
            `review ${JSON.stringify(scalar ?? null)} is not a review mode`,
            line,
            '`review: red-team` adds an adversarial second review by another agent family',
          );
        else frontMatter.review = 'red-team';
        break;
      }
      case 'write_set': {
        frontMatter.lines.write_set = line;
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
        break;
      }
      default:
        err(`unknown front matter key "${key}"`, line, unknownKeyHint(key, FRONT_MATTER_KEYS));
    }
  }
  if (frontMatter.runner === 'local' && !frontMatter.command)
    err('`runner: local` needs a `command` (argv list)', frontMatter.lines.runner);
  if (frontMatter.runner !== 'local' && (frontMatter.command || frontMatter.shell !== undefined))
    err(
      '`command` and `shell` need `runner: local`',
      frontMatter.lines.command ?? frontMatter.lines.shell,
    );
  // `complexity:` / `risk:` stand in for a route: the config's `routing` maps them to one.
  const routed = ['route', 'complexity', 'risk'] as const;
  if (required && routed.every((k) => frontMatter.lines[k] === undefined))
    err(
      'front matter has no `route` (nor `complexity` or `risk`)',
      1,
      "add `complexity: standard` (the config's `routing` maps it to a route) or `route: local-G01`",
    );
  return { frontMatter, problems };
}

/** `apply`, `runner`, `command`, `shell`: how a task runs and how its result lands. */
function readRunKey(
  frontMatter: PlanFrontMatter,
  key: 'apply' | 'runner' | 'command' | 'shell',
  line: number | undefined,
  value: FrontMatterPair['value'],
  err: (message: string, line: number | undefined, hint?: string) => void,
): void {
  frontMatter.lines[key] = line;
  const scalar = value?.kind === 'scalar' ? value.value : undefined;
  if (key === 'apply') {
    if (scalar === 'source' || scalar === 'patch') frontMatter.apply = scalar;
    else err('apply must be "source" or "patch"', line, '`apply: patch` keeps the diff as a patch');
  } else if (key === 'runner') {
    if (scalar === 'local' || scalar === 'agent') frontMatter.runner = scalar;
    else err('runner must be "local" or "agent"', line, '`runner: local` runs `command`, no agent');
  } else if (key === 'shell') {
    if (typeof scalar === 'boolean') frontMatter.shell = scalar;
    else err('shell must be true or false', line);
  } else if (
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
}

const DEEP_HINT = 'keep only route, depends_on, target and max_plan_loops: short values, one level';

/**
 * Parses front matter with the full YAML parser: its pairs, or undefined after reporting
 * syntax errors (with their lines), an empty document or a root that is not a mapping.
 */
export function readYamlPairs(
  yaml: string,
  err: (message: string, line: number | undefined, hint?: string) => void,
  required: boolean,
): FrontMatterPair[] | undefined {
  const deep = yamlNestingLine(yaml);
  if (deep !== undefined) {
    err(
      `front matter nests lists or maps more than ${MAX_YAML_NESTING} levels deep`,
      deep + 1,
      DEEP_HINT,
    );
    return undefined;
  }
  const { isMap, isScalar, LineCounter, parseDocument } = yamlModule();
  const counter = new LineCounter();
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(yaml, { lineCounter: counter, uniqueKeys: true });
  } catch (error) {
    // Nesting by indentation (`- - - …`) overflows the parser's stack outside its own checks.
    if (!(error instanceof RangeError)) throw error;
    err('front matter is nested too deeply to read', 2, DEEP_HINT);
    return undefined;
  }
  const lineOf = (node: unknown) => yamlFileLine(counter, node);
  for (const e of doc.errors)
    err(`front matter: ${e.message.split('\n')[0]}`, (e.linePos?.[0]?.line ?? 0) + 1);
  if (doc.errors.length > 0) return undefined;
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) {
    if (required)
      err(
        'front matter is empty; `route` is required',
        2,
        'add `route: local-G01` (or another route id)',
      );
    return undefined;
  }
  if (!isMap(root)) {
    err('front matter must be a YAML mapping', lineOf(root));
    return undefined;
  }
  return root.items.map((pair) => pairOfYamlNode(pair, lineOf));
}
