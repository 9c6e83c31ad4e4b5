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
