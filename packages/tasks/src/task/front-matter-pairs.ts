import { lazyRequire } from '@switchyard/utils';
import type * as Yaml from 'yaml';
import type { LineCounter, Pair } from 'yaml';

/** The `yaml` package, loaded only for front matter the fast reader does not take. */
export const yamlModule = lazyRequire<typeof Yaml>('yaml', import.meta.url);

/**
 * A front matter value reduced to what validation looks at: a scalar's value, a sequence's
 * item values (undefined for an item that is not a scalar) with their lines, or anything else.
 */
export type FrontMatterValue =
  | { kind: 'scalar'; value: unknown }
  | { kind: 'seq'; items: { value: unknown; line: number | undefined }[] }
  | { kind: 'other' };

/** One top-level `key: value` of the front matter; `value` is null for a missing value node. */
export interface FrontMatterPair {
  key: string;
  /** 1-based file line of the key. */
  line: number | undefined;
  value: FrontMatterValue | null;
}

/** Reduces a pair of the `yaml` document model; `fileLineOf` maps a node to its file line. */
export function pairOfYamlNode(
  pair: Pair,
  fileLineOf: (node: unknown) => number | undefined,
): FrontMatterPair {
  const { isScalar, isSeq } = yamlModule();
  const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
  const value = pair.value;
  let reduced: FrontMatterValue | null;
  if (value === null || value === undefined) reduced = null;
  else if (isScalar(value)) reduced = { kind: 'scalar', value: value.value };
  else if (isSeq(value))
    reduced = {
      kind: 'seq',
      items: value.items.map((item) => ({
        value: isScalar(item) ? item.value : undefined,
        line: fileLineOf(item),
      })),
    };
  else reduced = { kind: 'other' };
  return { key, line: fileLineOf(pair.key), value: reduced };
}

/** The file line (1-based) of a `yaml` node, given the front matter starts on line 2. */
export function yamlFileLine(counter: LineCounter, node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  // +1: the YAML starts on line 2 of the file, after the opening `---`.
  return range ? counter.linePos(range[0]).line + 1 : undefined;
}

// A plain scalar the fast reader accepts: no quotes, spaces, flow or comment characters.
const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
// Plain scalars that the YAML 1.2 core schema reads as booleans or null.
const NOT_STRINGS = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
const NULLS = new Set(['null', 'Null', 'NULL']);
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_]*):(?: +(.*?))? *$/;
const BLOCK_ITEM = /^( *)- +(.*?) *$/;
const BLANK_OR_COMMENT = /^ *(?:#.*)?$/;

/** The value of a plain scalar as the YAML core schema reads it, or undefined when unsure. */
function plainValue(text: string): string | number | undefined {
  if (!PLAIN.test(text) || NOT_STRINGS.has(text) || NULLS.has(text)) return undefined;
  const first = text.charCodeAt(0);
  if (first >= 48 && first <= 57) {
    // only plain decimal integers; `0x1f`, `1e3`, `1.5`, `007` go to the full parser
    if (!/^(?:0|[1-9][0-9]{0,14})$/.test(text)) return undefined;
    return Number(text);
  }
  return text;
}

/** A flow sequence `[a, b/c]` of plain scalars, or undefined when it is anything else. */
function flowItems(text: string): unknown[] | undefined {
  if (!text.startsWith('[') || !text.endsWith(']')) return undefined;
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const items: unknown[] = [];
  for (const part of inner.split(',')) {
    const value = plainValue(part.trim());
    if (value === undefined) return undefined;
    items.push(value);
  }
  return items;
}

/**
 * Reads the common shapes of front matter without a YAML parser: top-level `key: plain`,
 * `key: [plain, …]` and `key:` followed by `- plain` lines, with blank and comment lines.
 * Returns undefined for anything else (quotes, nesting, duplicates, empty, tabs, CR…), so the
 * caller falls back to the full YAML parser, which also locates every error. When it returns
 * pairs they equal what the full parser's document gives (checked by a differential test).
 */
export function readSimpleFrontMatter(yaml: string): FrontMatterPair[] | undefined {
  if (yaml.includes('\t') || yaml.includes('\r')) return undefined;
  const lines = yaml.split('\n');
  const pairs: FrontMatterPair[] = [];
  const keys = new Set<string>();
  let open: { pair: FrontMatterPair; indent: number | undefined } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    if (BLANK_OR_COMMENT.test(text)) continue;
    const fileLine = i + 2; // the YAML starts on line 2 of the file
    const item = open ? BLOCK_ITEM.exec(text) : null;
    if (open && item) {
      const indent = (item[1] as string).length;
      const value = plainValue(item[2] as string);
      if (value === undefined || (open.indent !== undefined && indent !== open.indent))
        return undefined;
      open.indent = indent;
      const seq = open.pair.value as Extract<FrontMatterValue, { kind: 'seq' }>;
      seq.items.push({ value, line: fileLine });
      continue;
    }
    if (open && open.indent === undefined) return undefined; // `key:` with no items: null
    open = undefined;
    const match = KEY_LINE.exec(text);
    if (!match) return undefined;
    const key = match[1] as string;
    // `True:` / `null:` are not string keys in YAML; duplicates are an error it reports
    if (keys.has(key) || NOT_STRINGS.has(key) || NULLS.has(key)) return undefined;
    keys.add(key);
    const raw = match[2] ?? '';
    const pair: FrontMatterPair = { key, line: fileLine, value: null };
    pairs.push(pair);
    if (raw === '') {
      pair.value = { kind: 'seq', items: [] };
      open = { pair, indent: undefined };
    } else if (raw.startsWith('[')) {
      const items = flowItems(raw);
      if (!items) return undefined;
      pair.value = { kind: 'seq', items: items.map((value) => ({ value, line: fileLine })) };
    } else {
      const value = plainValue(raw);
      if (value === undefined) return undefined;
      pair.value = { kind: 'scalar', value };
    }
  }
  if (open && open.indent === undefined) return undefined;
  return pairs.length > 0 ? pairs : undefined;
}
