/**
 * JSON for a file a person edits: two-space indentation, and an array of plain values that
 * fits on its line written on one line (`"candidates": ["a", "b"]`, an argv), as a formatter
 * would leave it. `JSON.parse` reads it back to the same value.
 */
export function readableJson(value: unknown, width = 100): string {
  const inline = (v: unknown) =>
    Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')
      ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]`
      : undefined;
  const write = (v: unknown, indent: string, lead: number): string => {
    const one = inline(v);
    if (one !== undefined && lead + one.length <= width) return one;
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    const inner = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((x) => `${inner}${write(x, inner, inner.length)}`).join(',\n')}\n${indent}]`;
    }
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([k, x]) => {
      const key = `${inner}${JSON.stringify(k)}: `;
      return `${key}${write(x, inner, key.length)}`;
    });
    return `{\n${lines.join(',\n')}\n${indent}}`;
  };
  return `${write(value, '', 0)}\n`;
}
