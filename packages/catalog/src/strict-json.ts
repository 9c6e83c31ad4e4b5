import { type ParseErrorCode, printParseErrorCode, visit } from 'jsonc-parser';

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
  const lineStarts: number[] = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
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
