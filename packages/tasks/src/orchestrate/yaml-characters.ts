import type { Document, LineCounter } from 'yaml';
import { yamlModule } from '../task/front-matter-pairs.js';
import type { SourcePosition } from './yaml-positions.js';

/** A lone UTF-16 surrogate: what a YAML escape such as "\uD800" makes, and no file can hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A character of a YAML plan's value that no task folder, PLAN.md or argv can carry. */
export interface UnreadableCharacter {
  position: SourcePosition;
  message: string;
  hint: string;
}

/**
 * Keys and values holding a NUL or a lone surrogate (written raw, or as an escape like "\0" or
 * "\uD800"). Left in, a NUL ends a path or argv at the operating system, and a lone surrogate
 * becomes U+FFFD on disk, so the PLAN.md written would never match the plan again.
 */
export function unreadableCharacters(doc: Document, counter: LineCounter): UnreadableCharacter[] {
  const { visit } = yamlModule();
  const found: UnreadableCharacter[] = [];
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || found.length >= 20) return;
      const what = node.value.includes('\u0000')
        ? 'a NUL character'
        : LONE_SURROGATE.test(node.value)
          ? 'a lone UTF-16 surrogate (an escape between \\uD800 and \\uDFFF)'
          : undefined;
      if (!what) return;
      const at = counter.linePos(node.range?.[0] ?? 0);
      found.push({
        position: { line: at.line, column: at.col },
        message: `the value holds ${what}`,
        hint: 'remove it (a binary paste or a stray escape); a plan is UTF-8 text',
      });
    },
  });
  return found;
}
