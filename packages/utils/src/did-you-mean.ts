import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate a misspelt name most likely meant (`maxParalel` → `maxParallel`), or undefined
 * when none is close: at most a third of its letters differ (two for short names). Letter case
 * is ignored, so `maxparallel` finds `maxParallel`.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates].filter((c) => c !== name);
  if (list.length === 0 || name === '') return undefined;
  const lower = name.toLowerCase();
  const sameLetters = list.find((c) => c.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  const best = closest(
    lower,
    list.map((c) => c.toLowerCase()),
  );
  const index = list.findIndex((c) => c.toLowerCase() === best);
  const limit = Math.max(2, Math.floor(best.length / 3));
  return distance(lower, best) <= limit ? list[index] : undefined;
}

/** ` Did you mean "x"?` for a misspelt name, or '' when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const near = closestName(name, candidates);
  return near === undefined ? '' : `did you mean "${near}"?`;
}
