import type { PlanFrontMatter, Problem } from '@switchyard/core';
import { type ReportFrontMatterProblem, readFrontMatterPair } from './front-matter-keys.js';
import {
  type FrontMatterPair,
  pairOfYamlNode,
  readSimpleFrontMatter,
  yamlFileLine,
  yamlModule,
} from './front-matter-pairs.js';
import { MAX_YAML_NESTING, yamlNestingLine } from './yaml-nesting.js';

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
  const err: ReportFrontMatterProblem = (message, line, hint) =>
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
  for (const pair of pairs) readFrontMatterPair(pair, { frontMatter, err, required });
  checkKeysTogether(frontMatter, err, required);
  return { frontMatter, problems };
}

/** The rules across keys: a local runner and its command, and a route or what stands in for one. */
function checkKeysTogether(
  frontMatter: PlanFrontMatter,
  err: ReportFrontMatterProblem,
  required: boolean,
): void {
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
}

const DEEP_HINT = 'keep only route, depends_on, target and max_plan_loops: short values, one level';

/**
 * Parses front matter with the full YAML parser: its pairs, or undefined after reporting
 * syntax errors (with their lines), an empty document or a root that is not a mapping.
 */
export function readYamlPairs(
  yaml: string,
  err: ReportFrontMatterProblem,
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
