import { readFileSync } from 'node:fs';
import { SwitchyardError } from '@switchyard/core/errors';
import type { z } from 'zod';

/** What a corrupt file is, and what the user should do about it (for the error). */
export interface JsonFileLabel {
  /** e.g. "escalation file", "session file". */
  what: string;
  hint: string;
}

/**
 * Reads a JSON file the dispatcher wrote atomically: undefined when it is absent, the parsed
 * value when it matches `schema`, else `SY_STATE_CORRUPT` naming the file and the first
 * problem (text that is not JSON included, so a hand edit never becomes an internal error).
 */
export function readJsonFile<T>(
  file: string,
  schema: z.ZodType<T>,
  label: JsonFileLabel,
): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  let problem: string | undefined;
  try {
    value = JSON.parse(text);
  } catch (error) {
    problem = `not JSON (${(error as Error).message})`;
  }
  if (problem === undefined) {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    problem = `${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message}`;
  }
  throw new SwitchyardError('SY_STATE_CORRUPT', `Cannot read ${label.what}: ${problem}`, {
    file,
    hint: label.hint,
  });
}
