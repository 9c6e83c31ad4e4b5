// Mutations of valid inputs, as fast-check arbitraries (so a failure shrinks to a small case):
// byte-level edits of the text (hostile tokens, deletions, duplications, splices of two seeds)
// and structure-aware edits of a parsed JSON/YAML value (a value at a random path replaced,
// deleted, renamed or nested thousands deep) written back as JSON or YAML.
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';

/** Tokens that have broken parsers elsewhere: control and odd Unicode, YAML and JSON syntax. */
export const HOSTILE_TOKENS = [
  '\u0000',
  '\uFEFF',
  '\uFFFD',
  '\uD800',
  '\u2028',
  '\u0085',
  '\r\n',
  '\r',
  '\t',
  '"',
  "'",
  '\\',
  '\\u0000',
  '{',
  '}',
  '[',
  ']',
  ',',
  ': ',
  '---\n',
  '...\n',
  '&a ',
  '*a',
  '<<: *a\n',
  '!!binary ',
  '!!js/function ',
  '!<tag:yaml.org,2002:str> ',
  '? ',
  '|\n',
  '>-\n',
  '# ',
  '%YAML 1.1\n',
  '`',
  '1e400',
  '-0',
  '0x1F',
  '9007199254740993',
  '.nan',
  'null',
  '~',
  '__proto__',
  'constructor',
  '{prompt}',
  '{bogus}',
  '${HOME}',
  '../../',
  '/etc/passwd',
  '.git/config',
  '- [ ] ',
  '## Modified Files Summary\n',
  '## Definition of Done\n',
  'Command: ',
  'Assertion: stdout matches /(a+)+$/',
  '```\n',
];

/** A token: a hostile one, deep nesting, a long run, or any string. */
export const token: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TOKENS) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('[', '{"a":', '{a: ', '- ', '> ', '  '),
        fc.integer({ min: 60, max: 6000 }),
      )
      .map(([open, n]) => open.repeat(n)),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
);

type Edit = { op: string; at: number; len: number; token: string };
const edit: fc.Arbitrary<Edit> = fc.record({
  op: fc.constantFrom(
    'insert',
    'insert-line',
    'delete',
    'replace',
    'duplicate',
    'indent',
    'splice',
  ),
  at: fc.nat(),
  len: fc.nat({ max: 80 }),
  token,
});

/** Applies one edit; positions wrap around the text so every edit lands somewhere. */
function applyEdit(text: string, e: Edit, other: string): string {
  const at = e.at % (text.length + 1);
  const end = Math.min(text.length, at + e.len);
  switch (e.op) {
    case 'insert':
      return text.slice(0, at) + e.token + text.slice(at);
    case 'insert-line': {
      const start = text.lastIndexOf('\n', at - 1) + 1;
      return `${text.slice(0, start)}${e.token}\n${text.slice(start)}`;
    }
    case 'delete':
      return text.slice(0, at) + text.slice(end);
    case 'replace':
      return text.slice(0, at) + e.token + text.slice(end);
    case 'duplicate':
      return text.slice(0, end) + text.slice(at, end) + text.slice(end);
    case 'indent': {
      const start = text.lastIndexOf('\n', at - 1) + 1;
      return `${text.slice(0, start)}${' '.repeat(1 + (e.len % 9))}${text.slice(start)}`;
    }
    default: {
      // splice: the head of this seed and the tail of another (or of itself)
      const cut = e.at % (other.length + 1);
      return text.slice(0, at) + other.slice(cut);
    }
  }
}

/** A seed text with 1-6 edits. */
export function mutatedText(seeds: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.nat({ max: seeds.length - 1 }),
      fc.nat({ max: seeds.length - 1 }),
      fc.array(edit, { minLength: 1, maxLength: 6 }),
    )
    .map(([i, j, edits]) =>
      edits.reduce((text, e) => applyEdit(text, e, seeds[j] as string), seeds[i] as string),
    );
}

// Deep nesting is written into the text after serialization (a serializer would recurse).
const DEEP = '\u0001deep:';
const deepMarker = fc
  .tuple(fc.constantFrom('array', 'object'), fc.integer({ min: 65, max: 6000 }))
  .map(([shape, n]) => `${DEEP}${shape}:${n}\u0001`);

/** Replaces deep-nesting markers by `[[[…]]]` / `{"a":{"a":…}}` in JSON or flow YAML. */
function expandDeep(text: string): string {
  return text.replace(/"?\u0001deep:(array|object):(\d+)\u0001"?/g, (_m, shape, n) =>
    shape === 'array'
      ? `${'['.repeat(Number(n))}${']'.repeat(Number(n))}`
      : `${'{"a":'.repeat(Number(n))}1${'}'.repeat(Number(n))}`,
  );
}

/** A value to put into a document: small JSON, hostile strings, argv lists, deep nesting. */
export function hostileValue(strings: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 3, arbitrary: fc.constantFrom(...strings) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...strings), { maxLength: 6 }) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TOKENS) },
    { weight: 1, arbitrary: deepMarker },
    {
      weight: 1,
      arbitrary: fc.constantFrom(-1, 0, 1, 2 ** 31, 2 ** 53 + 1, 1e308, -0, 0.5, Number.NaN),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 30, unit: 'binary' }) },
  );
}

type JsonEdit = { path: number[]; action: string; value: unknown; key: string };

/** Sets, deletes, renames or wraps the value found by following `path` (indices wrap). */
function applyJsonEdit(doc: unknown, e: JsonEdit): unknown {
  const root = { v: doc } as Record<string, unknown>;
  let parent: Record<string, unknown> | unknown[] = root;
  let key: string | number = 'v';
  for (const step of e.path) {
    const here = (parent as Record<string, unknown>)[key as string];
    if (typeof here !== 'object' || here === null) break;
    const keys = Array.isArray(here) ? here.map((_, i) => i) : Object.keys(here);
    if (keys.length === 0) break;
    parent = here as Record<string, unknown>;
    key = keys[step % keys.length] as string | number;
  }
  const slot = parent as Record<string | number, unknown>;
  switch (e.action) {
    case 'delete':
      if (Array.isArray(slot)) slot.splice(key as number, 1);
      else delete slot[key];
      break;
    case 'rename':
      if (!Array.isArray(slot) && slot !== root) {
        const value = slot[key];
        delete slot[key];
        Object.defineProperty(slot, e.key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      break;
    case 'add':
      if (typeof slot[key] === 'object' && slot[key] !== null && !Array.isArray(slot[key]))
        Object.defineProperty(slot[key], e.key, {
          value: e.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else if (Array.isArray(slot[key])) (slot[key] as unknown[]).push(e.value);
      else slot[key] = e.value;
      break;
    default:
      slot[key] = e.value;
  }
  return root.v;
}

/**
 * A parsed seed with 1-4 structural edits, written back: JSON with any indentation, or YAML
 * (block or flow style). Keys include `__proto__` and near-misses of real keys.
 */
export function mutatedDocument(
  seeds: readonly unknown[],
  format: 'json' | 'yaml',
  strings: readonly string[],
  keys: readonly string[],
): fc.Arbitrary<string> {
  const jsonEdit: fc.Arbitrary<JsonEdit> = fc.record({
    path: fc.array(fc.nat(), { maxLength: 8 }),
    action: fc.constantFrom('set', 'set', 'delete', 'rename', 'add'),
    value: hostileValue(strings),
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', '', ...keys), fc.string()),
  });
  return fc
    .tuple(
      fc.nat({ max: seeds.length - 1 }),
      fc.array(jsonEdit, { minLength: 1, maxLength: 4 }),
      fc.constantFrom(0, 2, '\t'),
      fc.boolean(),
    )
    .map(([i, edits, indent, flow]) => {
      const doc = edits.reduce(applyJsonEdit, structuredClone(seeds[i]));
      const text =
        format === 'json'
          ? JSON.stringify(doc, null, indent)
          : toYaml(doc, { collectionStyle: flow ? 'flow' : 'any', lineWidth: 0 });
      return expandDeep(text ?? '');
    });
}
