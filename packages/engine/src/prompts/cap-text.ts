/**
 * Length caps for text embedded in prompts (gate output, review evidence, checklist items,
 * write sets). A prompt travels in argv on many agent CLIs, where Linux refuses more than
 * 128 KiB per argument: one long line of gate output must not keep an attempt from starting.
 * Cuts keep the head and the tail (where errors usually are) and say what was cut.
 */

/** Most characters of one embedded line. */
export const MAX_EMBEDDED_LINE = 2000;
/** Most characters of an embedded block (all its lines). */
export const MAX_EMBEDDED_BLOCK = 16 * 1024;
/** Most write-set entries listed in a prompt (the plan, which the agent reads, has them all). */
export const MAX_LISTED_PATHS = 200;

/** `text` within `max` characters: head and tail with a note of how much was cut between. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  const note = ` …[${cut} characters cut]… `;
  const keep = Math.max(0, max - note.length);
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}${note}${text.slice(text.length - (keep - head))}`;
}

/** Lines capped one by one, then as a block: the first and last lines stay, a note marks the gap. */
export function capLines(
  lines: readonly string[],
  maxLine = MAX_EMBEDDED_LINE,
  maxBlock = MAX_EMBEDDED_BLOCK,
): string[] {
  const capped = lines.map((line) => capText(line, maxLine));
  let total = capped.reduce((n, l) => n + l.length + 1, 0);
  if (total <= maxBlock) return capped;
  const head: string[] = [];
  const tail: string[] = [];
  let budget = maxBlock - 64;
  let i = 0;
  let j = capped.length - 1;
  // Alternate head and tail so both ends of the output are kept.
  while (i <= j) {
    const next = head.length <= tail.length ? capped[i] : capped[j];
    if ((next as string).length + 1 > budget) break;
    budget -= (next as string).length + 1;
    if (head.length <= tail.length) head.push(capped[i++] as string);
    else tail.unshift(capped[j--] as string);
  }
  total = j - i + 1;
  return [...head, `…[${total} line${total === 1 ? '' : 's'} cut]…`, ...tail];
}

/** At most `max` items, then one line saying how many more there are and where. */
export function capList(items: readonly string[], max: number, where: string): string[] {
  if (items.length <= max) return [...items];
  return [...items.slice(0, max), `…and ${items.length - max} more (see ${where})`];
}
