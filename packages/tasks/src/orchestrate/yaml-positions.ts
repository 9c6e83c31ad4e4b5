import type { Document, LineCounter } from 'yaml';
import { yamlModule } from '../task/front-matter-pairs.js';

/** A 1-based line and column in the YAML source. */
export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * Maps a path inside a parsed YAML document (keys and sequence indexes, as zod reports
 * them) to the position of the deepest node that exists: a missing key points at the
 * mapping that lacks it. `key: true` points at the key of the last pair instead of its value.
 */
export function positionOf(
  doc: Document,
  counter: LineCounter,
  path: readonly PropertyKey[],
  options: { key?: boolean } = {},
): SourcePosition {
  const { isMap, isSeq, isScalar } = yamlModule();
  let node: unknown = doc.contents;
  let best: unknown = node;
  for (let i = 0; i < path.length; i++) {
    const step = path[i];
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(step),
      );
      if (!pair) break;
      const last = i === path.length - 1;
      node = last && options.key ? pair.key : (pair.value ?? pair.key);
    } else if (isSeq(node) && typeof step === 'number') {
      node = node.items[step];
    } else break;
    if (!node) break;
    best = node;
  }
  const range = (best as { range?: [number, number, number] } | null)?.range;
  const at = counter.linePos(range ? range[0] : 0);
  return { line: at.line, column: at.col };
}

/** The position of the key `key` of the mapping at `path` (for unknown-key problems). */
export function keyPositionOf(
  doc: Document,
  counter: LineCounter,
  path: readonly PropertyKey[],
  key: string,
): SourcePosition {
  return positionOf(doc, counter, [...path, key], { key: true });
}

/** Finds places in one YAML text by the parser's node positions (all 1-based). */
export interface YamlLocator {
  /** The node at `path`, or the deepest one of it that exists (see {@link positionOf}). */
  at(path: readonly PropertyKey[], options?: { key?: boolean }): SourcePosition;
  /** The line and column of a character offset. */
  positionAt(offset: number): SourcePosition;
  /** The path of the deepest node that holds `offset` (a syntax error's place in the document). */
  pathAt(offset: number): PropertyKey[];
  /** The offset where a second document starts, when the text holds more than one. */
  secondDocumentAt(): number | undefined;
}

/**
 * A locator over the `yaml` parser's document of `text`, read as far as it parses (a text with
 * a syntax error keeps the nodes before it). Used for a config whose values another parser read.
 */
export function yamlLocator(text: string): YamlLocator {
  const { LineCounter, parseDocument, isMap, isSeq, isScalar } = yamlModule();
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false });
  const rangeOf = (node: unknown) =>
    (node as { range?: [number, number, number] } | null | undefined)?.range;
  const holds = (node: unknown, offset: number) => {
    const range = rangeOf(node);
    return range !== undefined && range[0] <= offset && offset <= range[2];
  };
  return {
    at: (path, options) => positionOf(doc, counter, path, options),
    positionAt: (offset) => {
      const at = counter.linePos(offset);
      return { line: at.line, column: at.col };
    },
    pathAt: (offset) => {
      const path: PropertyKey[] = [];
      let node: unknown = doc.contents;
      for (;;) {
        if (isMap(node)) {
          const pair = node.items.findLast((p) => (rangeOf(p.key)?.[0] ?? Infinity) <= offset);
          if (!pair) break;
          path.push(isScalar(pair.key) ? String(pair.key.value) : String(pair.key));
          node = pair.value;
        } else if (isSeq(node)) {
          const index = node.items.findLastIndex((item) => holds(item, offset));
          if (index < 0) break;
          path.push(index);
          node = node.items[index];
        } else break;
        if (!holds(node, offset)) break;
      }
      return path;
    },
    secondDocumentAt: () => doc.errors.find((e) => e.code === 'MULTIPLE_DOCS')?.pos[0],
  };
}
