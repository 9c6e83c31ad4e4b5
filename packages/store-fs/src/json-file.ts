import { readFileSync, statSync } from 'node:fs';
import { SwitchyardError } from '@switchyard/core/dry-run';

/** The identity of a file's content as the file system tells it (a rename gives a new inode). */
export function statKey(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.ino}:${s.mtimeNs}:${s.ctimeNs}:${s.size}`;
  } catch {
    return 'absent';
  }
}

/**
 * What to do about a task state that cannot be read. Deleting it is not harmless for a task
 * already archived: its archive entry then has no record of the dispatcher's, and is reported
 * instead of counted until a person records it done.
 */
export const TASK_STATE_CORRUPT_HINT =
  "The file is written atomically, so this means it was edited or damaged by hand. Restore it from a backup if you have one. Else move it out of agent-task/.switchyard/ (a copy left in its folder under a name ending in .json is read as a task state too): a task still in agent-task/<group>/ starts over from its PLAN; a task already in agent-task/archive/ is then reported as archived without the dispatcher's record until `switchyard resolve <task> --done` records it done.";

/** `SY_STATE_CORRUPT` for a record that cannot be read, naming the file. */
export function corrupt(file: string, detail: string, hint: string, cause?: unknown) {
  return new SwitchyardError('SY_STATE_CORRUPT', `Cannot read ${file}: ${detail}`, {
    file,
    ...(cause === undefined ? {} : { cause }),
    hint,
  });
}

/** A file's text; undefined when it does not exist (any other error is thrown). */
export function readTextIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads a JSON file; undefined when it does not exist, `SY_STATE_CORRUPT` when it is not JSON. */
export function readJson(file: string, hint: string): unknown {
  const text = readTextIfExists(file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw corrupt(file, `not JSON (${(error as Error).message})`, hint, error);
  }
}

/**
 * A JSON document read again only when its file changed (by {@link statKey}); `parse` turns
 * the raw value (undefined: no file) into the document.
 */
export function cachedJson<T>(file: string, parse: (raw: unknown) => T, hint: string): () => T {
  let cache: { key: string; value: T } | undefined;
  return () => {
    const key = statKey(file);
    if (cache?.key !== key)
      cache = { key, value: parse(key === 'absent' ? undefined : readJson(file, hint)) };
    return cache.value;
  };
}
