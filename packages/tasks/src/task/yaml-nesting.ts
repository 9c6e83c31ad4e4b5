/** Deepest nesting of YAML flow collections (`[…]`, `{…}`) read; a plan needs two or three. */
export const MAX_YAML_NESTING = 64;

/** What comes before a `[`/`{` that opens a collection in block context (`: `, `- `, `? `, a line start)… */
const BLOCK_VALUE_START = new Set([10, 13, 58, 45, 63]);
/** …and inside a flow collection (`[`, `{`, `,`, `:`). */
const FLOW_VALUE_START = new Set([91, 123, 44, 58]);

/**
 * The 1-based line where a YAML text first nests flow collections (or sequences written on
 * one line, `- - - x`) deeper than `limit`, found by one linear scan (quoted scalars and
 * comments skipped). The YAML parser recurses per level:
 * thousands of `[` cost it seconds and end in its own stack overflow, reported many times.
 * A bracket inside a plain scalar (`a[b`) does not count.
 */
export function yamlNestingLine(text: string, limit = MAX_YAML_NESTING): number | undefined {
  let depth = 0;
  let line = 1;
  let quote = 0; // the open quote's char code, 0 outside quotes
  let before = 10; // the last character that is not a space or a tab (a line start at first)
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) line++;
    if (quote !== 0) {
      if (quote === 34 && ch === 92) i++;
      else if (ch === quote) quote = 0;
      continue;
    }
    if (ch === 32 || ch === 9) continue;
    if (ch === 35 && (i === 0 || text.charCodeAt(i - 1) <= 32)) {
      const end = text.indexOf('\n', i); // a comment: to the end of the line
      if (end < 0) break;
      i = end - 1;
      continue;
    }
    if (ch === 45 && before === 10 && depth === 0 && compactSequences(text, i) > limit) return line;
    if (ch === 34 || ch === 39) quote = ch;
    else if ((ch === 91 || ch === 123) && opensCollection(text, i, before, depth)) {
      if (++depth > limit) return line;
    } else if ((ch === 93 || ch === 125) && depth > 0) depth--;
    before = ch;
  }
  return undefined;
}

/** A bracket at `i` opens a collection (else it is part of a plain scalar such as `a[b`). */
function opensCollection(text: string, i: number, before: number, depth: number): boolean {
  if (depth > 0) return FLOW_VALUE_START.has(before);
  const previous = i === 0 ? 10 : text.charCodeAt(i - 1);
  return BLOCK_VALUE_START.has(before) && (previous <= 32 || before === 10);
}

/** How many sequences open at `i` on one line: `- - - x` is three. */
function compactSequences(text: string, i: number): number {
  let count = 0;
  let at = i;
  while (text.charCodeAt(at) === 45) {
    const next = text.charCodeAt(at + 1);
    if (next !== 32 && next !== 9) break;
    count++;
    at += 2;
    while (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9) at++;
  }
  return count;
}
