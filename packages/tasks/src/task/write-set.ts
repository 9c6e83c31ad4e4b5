import type { Problem, WriteSetEntry } from '@switchyard/core';
import { lineOf, listItems, type MdAnyNode, type MdSection, sourceOf } from './markdown.js';
import type { WriteSetResolver } from './write-set-path.js';

/**
 * Splits one list item into path and trailing note. A path in backticks may contain spaces
 * (`` `docs/My File.md` — rename``); otherwise the path is the first word and a trailing
 * `:` or `,` is dropped (`src/a.ts: add the flag`). A leading `[ ]`/`[x]` checkbox is ignored.
 */
export function splitEntry(item: MdAnyNode): { raw: string; path: string; note?: string } {
  const paragraph = item.children?.find((c) => c.type === 'paragraph');
  if (!paragraph) return { raw: '', path: '' };
  const raw = sourceOf(paragraph).replace(/\s+/g, ' ').trim();
  const first = paragraph.children?.[0];
  if (first?.type === 'inlineCode' && typeof first.value === 'string') {
    const note = raw
      .slice(raw.indexOf('`', raw.indexOf(first.value) + first.value.length) + 1)
      .trim();
    return note ? { raw, path: first.value, note } : { raw, path: first.value };
  }
  const text = raw.replace(/^\[[ xX]\]\s+/, '');
  const space = text.indexOf(' ');
  const word = space < 0 ? text : text.slice(0, space);
  const path = word.replace(/[:,;]$/, '').replace(/^`+|`+$/g, '');
  const note = space < 0 ? '' : text.slice(space + 1).trim();
  return note ? { raw, path, note } : { raw, path };
}

/** A write-set entry as written, before its path is checked against the workspace. */
export interface RawWriteSetEntry {
  raw: string;
  /** The path part (backticks and note removed), not yet canonical. */
  path: string;
  note?: string;
  line: number;
}

/** Lists the entries of a write-set section; an empty section is a problem. Pure (no fs). */
export function listWriteSetEntries(
  section: MdSection,
  file: string,
): { entries: RawWriteSetEntry[]; problems: Problem[] } {
  const items = listItems(section.nodes);
  if (items.length === 0)
    return {
      entries: [],
      problems: [
        {
          code: 'SY_PLAN_INVALID',
          message: `"## ${section.heading}" lists no files`,
          file,
          line: section.line,
          hint: 'list each file the task modifies as `- path/to/file.ext`',
          severity: 'error',
        },
      ],
    };
  return {
    entries: items.map((item) => ({ ...splitEntry(item), line: lineOf(item) })),
    problems: [],
  };
}

/**
 * Canonicalizes entries: with a resolver every refusal rule applies (absolute, `..`, globs,
 * directories, root, symlink escapes, .git/, agent-task/); without one only emptiness is
 * checked. Duplicates are warnings.
 */
export function resolveWriteSet(
  raw: readonly RawWriteSetEntry[],
  file: string,
  resolver: WriteSetResolver | undefined,
): { entries: WriteSetEntry[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const entries: WriteSetEntry[] = [];
  const seen = new Map<string, number>();
  for (const { raw: text, path, note, line } of raw) {
    const checked = resolver
      ? resolver.check(path)
      : path.trim() === ''
        ? {
            ok: false as const,
            message: 'empty write-set entry',
            hint: 'write one file path per list item',
          }
        : { ok: true as const, path: path.trim() };
    if (!checked.ok) {
      problems.push({
        code: 'SY_PLAN_INVALID',
        message: checked.message,
        file,
        line,
        hint: checked.hint,
        severity: 'error',
      });
      continue;
    }
    const previous = seen.get(checked.path);
    if (previous !== undefined) {
      problems.push({
        code: 'SY_PLAN_INVALID',
        message: `"${checked.path}" is listed twice (first on line ${previous})`,
        file,
        line,
        hint: 'list each file once',
        severity: 'warning',
      });
      continue;
    }
    seen.set(checked.path, line);
    const entry: WriteSetEntry = { path: checked.path, raw: text, line };
    if (note) entry.note = note;
    if ('resolved' in checked && checked.resolved) entry.resolved = checked.resolved;
    entries.push(entry);
  }
  return { entries, problems };
}
