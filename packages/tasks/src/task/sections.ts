import type { Problem } from '@switchyard/core';
import type { MdSection } from './markdown.js';

/** Headings that hold the write set; the first is current, the others are legacy (warning). */
export const WRITE_SET_HEADINGS = [
  'Modified Files Summary',
  'Files to Modify',
  'Modified Files',
] as const;
/** Headings that hold the checklist; the first is current, the other is legacy (warning). */
export const CHECKLIST_HEADINGS = ['Implementation Checklist', 'Checklist'] as const;
/** Heading of the optional Definition of Done. */
export const DONE_HEADING = 'Definition of Done';

const normalized = new WeakMap<MdSection, string>();
const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
// Each PLAN is searched for three sections; normalize each heading once.
const keyOf = (section: MdSection) => {
  let key = normalized.get(section);
  if (key === undefined) {
    key = norm(section.heading);
    normalized.set(section, key);
  }
  return key;
};

// The heading lists are module constants: normalize each list once, not per plan.
const wantedCache = new WeakMap<readonly string[], string[]>();
const wantedKeys = (headings: readonly string[]) => {
  let keys = wantedCache.get(headings);
  if (!keys) {
    keys = headings.map(norm);
    wantedCache.set(headings, keys);
  }
  return keys;
};

/**
 * Finds the one section named by `headings` (current heading first, then legacy ones).
 * Two matching sections are an error; a legacy heading is a warning.
 */
export function pickSection(
  sections: readonly MdSection[],
  headings: readonly string[],
  file: string,
  required: boolean,
): { section?: MdSection; problems: Problem[] } {
  const wanted = wantedKeys(headings);
  const found = sections.filter((s) => s.depth === 2 && wanted.includes(keyOf(s)));
  const problems: Problem[] = [];
  const [current] = headings;
  if (found.length === 0) {
    if (required)
      problems.push({
        code: 'SY_PLAN_INVALID',
        message: `missing section "## ${current}"`,
        file,
        hint: `add a "## ${current}" section`,
        severity: 'error',
      });
    return { problems };
  }
  if (found.length > 1)
    problems.push({
      code: 'SY_PLAN_INVALID',
      message: `${found.length} "${current}" sections (${found.map((s) => `"${s.heading}" line ${s.line}`).join(', ')}); exactly one is allowed`,
      file,
      line: found[1]?.line,
      hint: 'merge them into one section',
      severity: 'error',
    });
  const section = found[0];
  if (section && keyOf(section) !== wanted[0])
    problems.push({
      code: 'SY_PLAN_INVALID',
      message: `legacy heading "## ${section.heading}"`,
      file,
      line: section.line,
      hint: `rename it to "## ${current}"`,
      severity: 'warning',
    });
  return { section, problems };
}
