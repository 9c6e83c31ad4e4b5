import type { Problem } from '@switchyard/core';
import { listItems, type MdSection } from './markdown.js';

/** What a `write_set: any` PLAN.md says under its Modified Files Summary (read by agents). */
export const ANY_WRITE_SET_TEXT =
  "Any file of the task's worktree except `.git` (`write_set: any`): the task runs in its own git worktree and its diff is checked against that.";

/**
 * `write_set: any` and a listed write set contradict each other: the section may stay (with
 * prose for the agent) but lists no files.
 */
export function anyWriteSetProblems(section: MdSection, file: string): Problem[] {
  if (listItems(section.nodes).length === 0) return [];
  return [
    {
      code: 'SY_PLAN_INVALID',
      message: `"## ${section.heading}" lists files, but the front matter says \`write_set: any\``,
      file,
      line: section.line,
      hint: 'remove `write_set: any` to keep the listed write set, or remove the list',
      severity: 'error',
    },
  ];
}
