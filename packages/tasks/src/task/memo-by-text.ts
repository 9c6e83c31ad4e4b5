import { copyPlainData } from '@switchyard/utils';

/**
 * A pure parse of a Markdown text, remembered for the last `size` texts: the dispatcher reads
 * the same plan and review several times per attempt (the plan copy, the checklist merge, the
 * completion check, the archive's notes), and parsing is most of that. Each call gets its own
 * copy of the result, so a caller that changes it changes nothing another call sees (a plain
 * copy: structuredClone's serialize-and-parse cost as much as the parse it saved).
 */
export function memoizeByText<A extends unknown[], R>(
  parse: (source: string, ...rest: A) => R,
  size = 64,
): (source: string, ...rest: A) => R {
  const seen = new Map<string, R>();
  return (source, ...rest) => {
    const key = rest.length === 0 ? source : `${JSON.stringify(rest)}\0${source}`;
    let result = seen.get(key);
    if (result === undefined) {
      result = parse(source, ...rest);
      if (seen.size >= size) seen.delete(seen.keys().next().value as string);
    } else seen.delete(key); // moved to the newest end
    seen.set(key, result);
    return copyPlainData(result);
  };
}
