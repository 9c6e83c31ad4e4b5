import type { ClassifierPlugin } from '../plugins/types.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const ASCII = /^[\x00-\x7f]*$/;

/** One case-insensitive alternation of the hints. An ASCII hint holding another ASCII hint is
 * dropped (the shorter one matches wherever it does), so the regex stays short. */
function hintPattern(hints: readonly string[]): RegExp {
  const unique = [...new Set(hints.map((h) => (ASCII.test(h) ? h.toLowerCase() : h)))];
  const ascii = unique.filter((h) => ASCII.test(h));
  const needed = unique.filter(
    (h) => !ASCII.test(h) || !ascii.some((o) => o !== h && h.includes(o)),
  );
  return new RegExp(needed.map(escapeRegExp).join('|'), 'i');
}

/**
 * One predicate for the retry-line hooks of the given classifiers: true when any of them
 * calls the line a retry. The `retryHints` of all classifiers that declare them become one
 * case-insensitive regex tested first; their hooks run only on lines it matches. Hooks of
 * classifiers without hints run on every line, so the answer is the same as calling every
 * hook on every line.
 */
export function retryLinePredicate(
  classifiers: readonly ClassifierPlugin[],
): (line: string) => boolean {
  const hinted: ((line: string) => boolean)[] = [];
  const unhinted: ((line: string) => boolean)[] = [];
  const hints: string[] = [];
  for (const c of classifiers) {
    if (!c.isRetryLine) continue;
    const hook = c.isRetryLine.bind(c);
    if (c.retryHints !== undefined && c.retryHints.length > 0) {
      hinted.push(hook);
      hints.push(...c.retryHints);
    } else {
      unhinted.push(hook);
    }
  }
  const hint = hints.length > 0 ? hintPattern(hints) : undefined;
  return (line) =>
    (hint?.test(line) === true && hinted.some((h) => h(line))) || unhinted.some((h) => h(line));
}
