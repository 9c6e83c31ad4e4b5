import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AttemptLocator,
  type AttemptLocatorInput,
  locatorSchema,
  SwitchyardError,
} from '@switchyard/core';
import { replaceFile } from '@switchyard/utils';
import { ATTEMPT_FILES } from './layout.js';

/**
 * Writes `locator.json` atomically (temp file + rename) after validating it. `fsync`
 * (default true) also flushes it to disk; the launch-time write may skip that, since a
 * dispatcher crash keeps the page cache and the final write is fsynced.
 */
export async function writeLocator(
  dir: string,
  locator: AttemptLocatorInput,
  options: { fsync?: boolean } = {},
): Promise<AttemptLocator> {
  const value = locatorSchema.parse(locator);
  const file = join(dir, ATTEMPT_FILES.locator);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  await replaceFile(file, text, { durable: options.fsync !== false });
  return value;
}

/**
 * Reads and validates `locator.json`; a broken one is SY_STATE_CORRUPT with every problem.
 * Read on this thread: a small file in the page cache, where fs/promises' open, stat, read and
 * close on the thread pool cost about ten times the CPU.
 */
export async function readLocator(dir: string): Promise<AttemptLocator> {
  const file = join(dir, ATTEMPT_FILES.locator);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new SwitchyardError('SY_STATE_CORRUPT', `Cannot read attempt locator ${file}.`, {
      cause,
      file,
      hint: 'The attempt directory is damaged; inspect or delete it.',
    });
  }
  const parsed = locatorSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({
      code: 'SY_STATE_CORRUPT' as const,
      message: i.message,
      file,
      path: i.path.join('.'),
    }));
    throw new SwitchyardError('SY_STATE_CORRUPT', `Attempt locator ${file} is invalid.`, {
      file,
      problems,
      hint: 'The attempt directory is damaged or from another switchyard version.',
    });
  }
  return parsed.data;
}
