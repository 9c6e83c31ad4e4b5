import { readFileSync } from 'node:fs';
import type { Problem } from '../errors.js';
import { readChecklistSection } from './checklist.js';
import { readDefinitionOfDone } from './definition-of-done.js';
import { parseFrontMatter, splitFrontMatter } from './front-matter.js';
import { parseSections } from './markdown.js';
import { CHECKLIST_HEADINGS, DONE_HEADING, pickSection, WRITE_SET_HEADINGS } from './sections.js';
import type { ParsedPlan } from './types.js';
import { readWriteSet } from './write-set.js';
import { WriteSetResolver } from './write-set-path.js';

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

/** Parses one PLAN source against the task contract; never throws for bad content. */
export function parsePlan(source: string, options: ParsePlanOptions): ParsedPlan {
  const { file } = options;
  const split = splitFrontMatter(source);
  const problems: Problem[] = [];
  if (split.unterminated)
    problems.push({
      code: 'SY_PLAN_INVALID',
      message: 'front matter has no closing `---` line',
      file,
      line: 1,
      severity: 'error',
    });
  const fm = parseFrontMatter(split.yaml, file, !options.followUp);
  problems.push(...fm.problems);
  const sections = parseSections(split.body);
  const resolver =
    options.resolver ?? (options.workspace ? new WriteSetResolver(options.workspace) : undefined);
  const plan: ParsedPlan = {
    file,
    frontMatter: fm.frontMatter,
    sections: sections
      .filter((s) => s.depth === 2)
      .map((s) => ({ heading: s.heading, line: s.line })),
    writeSet: [],
    checklist: [],
    problems,
  };
  const ws = pickSection(sections, WRITE_SET_HEADINGS, file, true);
  problems.push(...ws.problems);
  if (ws.section) {
    const read = readWriteSet(ws.section, split.body, file, resolver);
    plan.writeSet = read.entries;
    problems.push(...read.problems);
  }
  const cl = pickSection(sections, CHECKLIST_HEADINGS, file, true);
  problems.push(...cl.problems);
  if (cl.section) {
    const read = readChecklistSection(cl.section, split.body, file);
    plan.checklist = read.items;
    problems.push(...read.problems);
  }
  const dod = pickSection(sections, [DONE_HEADING], file, false);
  problems.push(...dod.problems);
  if (dod.section) {
    const read = readDefinitionOfDone(dod.section, split.body, file);
    if (read.done) plan.definitionOfDone = read.done;
    problems.push(...read.problems);
  }
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return plan;
}

/** Reads and parses a PLAN file; an unreadable file is one problem. */
export function parsePlanFile(
  path: string,
  options: Omit<ParsePlanOptions, 'file'> & { file?: string },
): ParsedPlan {
  const file = options.file ?? path;
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (error) {
    return {
      file,
      frontMatter: { dependsOn: [], lines: {} },
      sections: [],
      writeSet: [],
      checklist: [],
      problems: [
        {
          code: 'SY_PLAN_INVALID',
          message: `cannot read plan: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          file,
          severity: 'error',
        },
      ],
    };
  }
  return parsePlan(source, { ...options, file });
}

/** True when any problem is an error (warnings do not fail validation). */
export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity !== 'warning');
}
