import pc from 'picocolors';

const ANSI = /\u001b\[[0-9;]*m/g;
const width = (s: string) => s.replace(ANSI, '').length;

/** Renders rows as aligned columns with a dim header; the last column is not padded. */
export function renderTable(header: string[], rows: string[][], indent = '  '): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    indent +
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell)),
      )
      .join('  ')
      .trimEnd();
  return [line(header.map((h) => pc.dim(h))), ...rows.map(line)].join('\n');
}
