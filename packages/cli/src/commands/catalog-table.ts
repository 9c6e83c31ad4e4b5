import pc from 'picocolors';
import stringWidth from 'string-width';

/**
 * Renders rows as aligned columns with a dim header; the last column is not padded. Widths
 * are display widths (string-width: colours ignored, wide and combining characters counted
 * as the terminal shows them).
 */
export function renderTable(header: string[], rows: string[][], indent = '  '): string {
  const widths = header.map((h, i) =>
    Math.max(stringWidth(h), ...rows.map((r) => stringWidth(r[i] ?? ''))),
  );
  const line = (cells: string[]) =>
    indent +
    cells
      .map((cell, i) =>
        i === cells.length - 1
          ? cell
          : cell + ' '.repeat(Math.max(0, (widths[i] ?? 0) - stringWidth(cell))),
      )
      .join('  ')
      .trimEnd();
  return [line(header.map((h) => pc.dim(h))), ...rows.map(line)].join('\n');
}
