import type { ClassifierPlugin } from '../plugins/types.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
  const hint = hints.length > 0 ? new RegExp(hints.map(escapeRegExp).join('|'), 'i') : undefined;
  return (line) =>
    (hint?.test(line) === true && hinted.some((h) => h(line))) || unhinted.some((h) => h(line));
}
