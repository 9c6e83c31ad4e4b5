import type { ParsedPlan, Problem } from '@switchyard/core';
import { maxPlanBytes, readBoundedFile } from '@switchyard/utils';
import { readChecklistSection } from './checklist.js';
import { readDefinitionOfDone } from './definition-of-done.js';
import { parseFrontMatter, splitFrontMatter } from './front-matter.js';
import { parseSections } from './markdown.js';
import { CHECKLIST_HEADINGS, DONE_HEADING, pickSection, WRITE_SET_HEADINGS } from './sections.js';
import { listWriteSetEntries, type RawWriteSetEntry, resolveWriteSet } from './write-set.js';
import { anyWriteSetProblems } from './write-set-any.js';
import { WriteSetResolver } from './write-set-path.js';

const DONE_HEADINGS = [DONE_HEADING] as const;

/** Longest YAML front matter read (characters). */
export const MAX_FRONT_MATTER_CHARS = 64 * 1024;

/** Options of {@link parsePlan}. */
export interface ParsePlanOptions {
  /** File name used in problems. */
  file: string;
  /** Checks write-set paths against this workspace (real paths, symlinks, directories). */
  workspace?: string;
  /** A resolver shared across many plans of one workspace (faster than `workspace`). */
  resolver?: WriteSetResolver;
  /** A follow-up plan (`PLAN-2.md`…) may omit the front matter and its `route`. */
  followUp?: boolean;
}

/**
 * Everything a PLAN says that does not depend on the file system: JSON-serializable, so it
 * can be cached by file identity. {@link finishPlan} adds the write-set path checks.
 */
export interface PlanSource {
  file: string;
  frontMatter: ParsedPlan['frontMatter'];
  sections: ParsedPlan['sections'];
  writeSetEntries: RawWriteSetEntry[];
  checklist: ParsedPlan['checklist'];
  definitionOfDone?: ParsedPlan['definitionOfDone'];
  problems: ParsedPlan['problems'];
}

/** Parses a PLAN source (front matter, sections, entries, checklist, Definition of Done). Pure. */
export function readPlanSource(
  source: string,
  options: { file: string; followUp?: boolean },
): PlanSource {
  const { file } = options;
  const split = splitFrontMatter(source);
  const problems: Problem[] = nulBytes(source, file);
  if (split.unterminated)
    problems.push({
      code: 'SY_PLAN_INVALID',
      message: 'front matter has no closing `---` line',
      file,
      line: 1,
      severity: 'error',
    });
  // Four short keys need little room; a huge (or deeply nested) YAML block is refused
  // before the YAML parser sees it.
  const fmTooLarge = (split.yaml?.length ?? 0) > MAX_FRONT_MATTER_CHARS;
  if (fmTooLarge)
    problems.push({
      code: 'SY_PLAN_INVALID',
      message: `front matter is over ${MAX_FRONT_MATTER_CHARS} characters`,
      file,
      line: 1,
      hint: 'keep only route, depends_on, target and max_plan_loops in the front matter',
      severity: 'error',
    });
  const fm = fmTooLarge
    ? { frontMatter: { dependsOn: [], lines: {} }, problems: [] }
    : parseFrontMatter(split.yaml, file, !options.followUp);
  problems.push(...fm.problems);
  const sections = parseSections(split.body);
  const plan: PlanSource = {
    file,
    frontMatter: fm.frontMatter,
    sections: sections
      .filter((s) => s.depth === 2)
      .map((s) => ({ heading: s.heading, line: s.line })),
    writeSetEntries: [],
    checklist: [],
    problems,
  };
  // `write_set: any`: the section is optional and lists nothing (see write-set-any.ts).
  const anyPath = fm.frontMatter.writeSet === 'any';
  const ws = pickSection(sections, WRITE_SET_HEADINGS, file, !anyPath);
  problems.push(...ws.problems);
  if (ws.section && anyPath) problems.push(...anyWriteSetProblems(ws.section, file));
  else if (ws.section) {
    const listed = listWriteSetEntries(ws.section, file);
    plan.writeSetEntries = listed.entries;
    problems.push(...listed.problems);
  }
  const cl = pickSection(sections, CHECKLIST_HEADINGS, file, true);
  problems.push(...cl.problems);
  if (cl.section) {
    const read = readChecklistSection(cl.section, file);
    plan.checklist = read.items;
    problems.push(...read.problems);
  }
  const dod = pickSection(sections, DONE_HEADINGS, file, false);
  problems.push(...dod.problems);
  if (dod.section) {
    const read = readDefinitionOfDone(dod.section, file);
    if (read.done) plan.definitionOfDone = read.done;
    problems.push(...read.problems);
  }
  return plan;
}

/** Checks the write-set paths of a parsed source and returns the complete plan. */
export function finishPlan(source: PlanSource, resolver: WriteSetResolver | undefined): ParsedPlan {
  const resolved = resolveWriteSet(source.writeSetEntries, source.file, resolver);
  const problems = [...source.problems, ...resolved.problems].sort(
    (a, b) => (a.line ?? 0) - (b.line ?? 0),
  );
  const plan: ParsedPlan = {
    file: source.file,
    frontMatter: source.frontMatter,
    sections: source.sections,
    writeSet: resolved.entries,
    checklist: source.checklist,
    problems,
  };
  if (source.definitionOfDone) plan.definitionOfDone = source.definitionOfDone;
  return plan;
}

/** Parses one PLAN source against the task contract; never throws for bad content. */
export function parsePlan(source: string, options: ParsePlanOptions): ParsedPlan {
  const resolver =
    options.resolver ?? (options.workspace ? new WriteSetResolver(options.workspace) : undefined);
  return finishPlan(readPlanSource(source, options), resolver);
}

/**
 * Reads a PLAN's text: a regular file (a symlink only to a file in the same folder) of at
 * most {@link maxPlanBytes} bytes; anything else is one problem and nothing is read.
 */
export function readPlanText(path: string, file: string): { text: string } | { problem: Problem } {
  const read = readBoundedFile(path, { maxBytes: maxPlanBytes() });
  if (read.ok) return { text: read.text };
  return {
    problem: {
      code: 'SY_PLAN_INVALID',
      message:
        read.reason === 'missing'
          ? 'cannot read plan: ENOENT (it does not exist)'
          : `cannot read plan: it ${read.message}`,
      file,
      hint: read.hint,
      severity: 'error',
    },
  };
}

/** Reads and parses a PLAN file; an unreadable or refused file is one problem. */
export function parsePlanFile(
  path: string,
  options: Omit<ParsePlanOptions, 'file'> & { file?: string },
): ParsedPlan {
  const file = options.file ?? path;
  const read = readPlanText(path, file);
  if ('problem' in read)
    return {
      file,
      frontMatter: { dependsOn: [], lines: {} },
      sections: [],
      writeSet: [],
      checklist: [],
      problems: [read.problem],
    };
  return parsePlan(read.text, { ...options, file });
}

/** True when any problem is an error (warnings do not fail validation). */
export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity !== 'warning');
}

/**
 * A NUL byte in a plan is refused where it stands: the Markdown parser would turn it into
 * U+FFFD, and a write-set path, a command or a checklist item would silently become another.
 */
function nulBytes(source: string, file: string): Problem[] {
  if (!source.includes('\u0000')) return [];
  const problems: Problem[] = [];
  source.split('\n').forEach((text, index) => {
    if (text.includes('\u0000'))
      problems.push({
        code: 'SY_PLAN_INVALID',
        message: `line ${index + 1} contains a NUL byte`,
        file,
        line: index + 1,
        hint: 'remove the NUL byte (a binary paste or a bad encoding); a plan is UTF-8 text',
        severity: 'error',
      });
  });
  return problems.slice(0, 20);
}
