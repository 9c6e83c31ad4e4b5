import {
  getLocation,
  type Node,
  type ParseError,
  type ParseErrorCode,
  parseTree,
  printParseErrorCode,
  visit,
} from 'jsonc-parser';

/** A fault of a JSON document that `JSON.parse` would accept silently or report vaguely. */
export interface StrictJsonFault {
  message: string;
  line: number;
  /** Dotted JSON path of the object holding a duplicate key. */
  path?: string;
}

/** Decodes UTF-8 strictly: invalid bytes are a fault (with their line), never U+FFFD. */
export function decodeUtf8Strict(bytes: Uint8Array): { text: string } | { fault: StrictJsonFault } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    // Where: the first replacement character of a lenient decode (linear).
    const lenient = new TextDecoder('utf-8').decode(bytes);
    const at = Math.max(0, lenient.indexOf('\uFFFD'));
    const before = lenient.slice(0, at);
    let line = 1;
    for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) line++;
    return { fault: { message: `invalid UTF-8 at byte ${Buffer.byteLength(before)}`, line } };
  }
}

/** Deepest nesting of objects and arrays a catalog may have (a real one needs about 6). */
export const MAX_JSON_DEPTH = 64;

/**
 * The first place a JSON text nests objects and arrays deeper than `limit`, found with one
 * linear scan that keeps no stack (strings skipped, escapes honoured). The recursive parsers
 * after it (duplicate-key check, schema) would otherwise end in a RangeError on a document
 * nested thousands deep.
 */
export function jsonNestingFault(
  text: string,
  limit = MAX_JSON_DEPTH,
): StrictJsonFault | undefined {
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) line++;
    if (inString) {
      if (ch === 92)
        i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
      continue;
    }
    if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) {
      depth++;
      if (depth > limit)
        return {
          message: `objects and arrays are nested more than ${limit} levels deep (at line ${line})`,
          line,
        };
    } else if (ch === 125 || ch === 93) depth = Math.max(0, depth - 1);
  }
  return undefined;
}

/**
 * Duplicate object keys (`JSON.parse` keeps the last one silently, which can hide a value)
 * and syntax errors, each with its line. Linear in the document size.
 */
export function findJsonFaults(text: string): StrictJsonFault[] {
  const faults: StrictJsonFault[] = [];
  const positionAt = positionsIn(text);
  const lineOf = (offset: number) => positionAt(offset).line;
  const keys: Set<string>[] = [];
  visit(
    text,
    {
      onObjectBegin: () => {
        keys.push(new Set());
      },
      onObjectEnd: () => {
        keys.pop();
      },
      onObjectProperty: (property, offset, _length, _line, _col, pathSupplier) => {
        const seen = keys.at(-1);
        if (!seen) return;
        if (seen.has(property)) {
          const path = pathSupplier().join('.');
          faults.push({
            message: `duplicate key "${property}"${path ? ` in ${path}` : ''} (JSON keeps only the last one)`,
            line: lineOf(offset),
            ...(path ? { path } : {}),
          });
        }
        seen.add(property);
      },
      onError: (error: ParseErrorCode, offset: number) => {
        faults.push({ message: printParseErrorCode(error), line: lineOf(offset) });
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return faults;
}

/** A 1-based line and column in a JSON text. */
export interface JsonPosition {
  line: number;
  column: number;
}

/** Finds places in one JSON text by the parser's node offsets. */
export interface JsonLocator {
  /**
   * The node at `path` (keys and array indexes), or the deepest one of it that exists: a
   * missing key points at the object that lacks it. `key: true`: the last step's key.
   */
  at(path: readonly PropertyKey[], options?: { key?: boolean }): JsonPosition;
  /** The line and column of a character offset. */
  positionAt(offset: number): JsonPosition;
  /** The first syntax error as strict JSON reads it (no comments, no trailing commas). */
  syntaxError?: { message: string; offset: number; length: number; path: (string | number)[] };
}

/** A locator over the tolerant JSON parser's tree of `text`. */
export function jsonLocator(text: string): JsonLocator {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  const positionAt = positionsIn(text);
  const first = errors[0];
  return {
    at: (path, options = {}) => {
      let node: Node | undefined = root;
      let best = root;
      for (const [i, step] of path.entries()) {
        if (node?.type === 'object') {
          // The last of duplicate keys, as JSON.parse keeps it.
          const property: Node | undefined = node.children?.findLast(
            (p) => p.children?.[0]?.value === String(step),
          );
          if (!property) break;
          const last = i === path.length - 1;
          node = last && options.key ? property.children?.[0] : property.children?.[1];
        } else if (node?.type === 'array' && typeof step === 'number') {
          node = node.children?.[step];
        } else break;
        if (!node) break;
        best = node;
      }
      return positionAt(best?.offset ?? 0);
    },
    positionAt,
    ...(first
      ? {
          syntaxError: {
            message: printParseErrorCode(first.error),
            offset: first.offset,
            length: first.length,
            path: getLocation(text, first.offset).path,
          },
        }
      : {}),
  };
}

/** The 1-based line and column of a character offset of `text` (a binary search over the
 * offsets where its lines start, found once). */
function positionsIn(text: string): (offset: number) => JsonPosition {
  const lineStarts: number[] = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (lineStarts[lo] as number) + 1 };
  };
}
