import type { ChecklistItem, Problem } from '@switchyard/core';
import { splitFrontMatter } from './front-matter.js';
import { allListItems, lineOf, type MdSection, parseSections, sourceOf } from './markdown.js';
import { memoizeByText } from './memo-by-text.js';
import { CHECKLIST_HEADINGS, pickSection } from './sections.js';

const BOX = /^\[([ xX])\](?:\s+|$)/;

/** The `- [ ]` / `- [x]` items of a checklist section, nested items included, in order. */
export function readChecklistSection(
  section: MdSection,
  file: string,
): { items: ChecklistItem[]; problems: Problem[] } {
  const items: ChecklistItem[] = [];
  const problems: Problem[] = [];
  for (const item of allListItems(section.nodes)) {
    const paragraph = item.children?.find((c) => c.type === 'paragraph');
    const text = paragraph ? sourceOf(paragraph).replace(/\s+/g, ' ').trim() : '';
    const box = BOX.exec(text);
    if (!box) {
      problems.push({
        code: 'SY_PLAN_INVALID',
        message: `checklist item without a checkbox: "${text.slice(0, 60)}"`,
        file,
        line: lineOf(item),
        hint: 'start each item with `- [ ] `',
        severity: 'warning',
      });
      continue;
    }
    items.push({
      checked: box[1] !== ' ',
      text: text.slice(box[0].length).trim(),
      line: lineOf(item),
    });
  }
  if (items.length === 0)
    problems.push({
      code: 'SY_PLAN_INVALID',
      message: `"## ${section.heading}" has no \`- [ ]\` items`,
      file,
      line: section.line,
      hint: 'list the implementation steps as `- [ ] step`',
      severity: 'error',
    });
  return { items, problems };
}

/**
 * The checklist of a PLAN source: every checkbox item with its checked state, text and
 * line. Used to verify that a worker ticked every item (self-check acceptance). Remembered
 * per text (see {@link memoizeByText}): an attempt reads the same plan's checklist several times.
 */
export const readChecklist = memoizeByText(parseChecklist);

function parseChecklist(
  source: string,
  file = 'PLAN.md',
): { items: ChecklistItem[]; problems: Problem[] } {
  const { body } = splitFrontMatter(source);
  const picked = pickSection(parseSections(body), CHECKLIST_HEADINGS, file, true);
  if (!picked.section) return { items: [], problems: picked.problems };
  const read = readChecklistSection(picked.section, file);
  return { items: read.items, problems: [...picked.problems, ...read.problems] };
}
