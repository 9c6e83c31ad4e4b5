import { ROUTE_IDS } from '../catalog/constants.js';
import type { Problem } from '../errors.js';
import {
  type FrontMatterPair,
  pairOfYamlNode,
  readSimpleFrontMatter,
  yamlFileLine,
  yamlModule,
} from './front-matter-pairs.js';
import type { PlanFrontMatter } from './types.js';

/** The front matter keys a PLAN may use; any other key is an error (a typo must not drop a dependency). */
export const FRONT_MATTER_KEYS = [
  'route',
  'depends_on',
  'target',
  'max_plan_loops',
  'tests',
] as const;

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
      default:
        err(
          `unknown front matter key "${key}"`,
          line,
          `allowed keys: ${FRONT_MATTER_KEYS.join(', ')}`,
        );
    }
  }
  if (required && frontMatter.route === undefined && frontMatter.lines.route === undefined)
    err('front matter has no `route`', 1, 'add `route: local-G01` (or another route id)');
  return { frontMatter, problems };
}

/**
 * Parses front matter with the full YAML parser: its pairs, or undefined after reporting
 * syntax errors (with their lines), an empty document or a root that is not a mapping.
 */
export function readYamlPairs(
  yaml: string,
  err: (message: string, line: number | undefined, hint?: string) => void,
  required: boolean,
): FrontMatterPair[] | undefined {
  const { isMap, isScalar, LineCounter, parseDocument } = yamlModule();
  const counter = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter: counter, uniqueKeys: true });
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
