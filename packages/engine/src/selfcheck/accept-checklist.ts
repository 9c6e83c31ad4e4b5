/** A checklist item as the task contract's checklist reader returns it. */
export interface ChecklistEntry {
  checked: boolean;
  text: string;
  line: number;
}

/** Self-checks that fill nothing are retried in the same native context at most this often. */
export const SELFCHECK_RETRY_LIMIT = 10;

/** Whether a self-check pass completed the `## Implementation Checklist`. */
export type ChecklistVerdict =
  | { accepted: true; items: number }
  | { accepted: false; reason: string; open: ChecklistEntry[] };

/**
 * Self-check acceptance: at least one checkbox, and every checkbox checked with non-empty
 * text. The open items (with lines) go into the correction the next pass receives.
 */
export function acceptChecklist(items: readonly ChecklistEntry[]): ChecklistVerdict {
  if (items.length === 0) {
    return { accepted: false, reason: 'the Implementation Checklist has no checkbox', open: [] };
  }
  const open = items.filter((item) => !item.checked || item.text.trim() === '');
  if (open.length === 0) return { accepted: true, items: items.length };
  const unchecked = open.filter((i) => !i.checked).length;
  const empty = open.length - unchecked;
  const parts = [
    unchecked > 0 ? `${unchecked} unchecked` : '',
    empty > 0 ? `${empty} checked without text` : '',
  ].filter(Boolean);
  return {
    accepted: false,
    reason: `${parts.join(' and ')} of ${items.length} checklist item(s)`,
    open,
  };
}
