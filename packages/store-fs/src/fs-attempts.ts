import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AttemptIndexPort, AttemptLocator, AttemptRef } from '@switchyard/core';
import { ATTEMPT_FILES, readLocator, writeLocator } from '@switchyard/runner-kit';
import type { FsLeases } from './fs-leases.js';

/**
 * The attempt index: each attempt's `locator.json` in its capture folder (under `attempts/`
 * for the attempts this store's dispatcher runs), replaced atomically; fsynced unless the
 * write says it need not be.
 */
export function fsAttempts(attemptsDir: string, leases: FsLeases): AttemptIndexPort {
  const get = async (ref: AttemptRef): Promise<AttemptLocator | undefined> =>
    existsSync(join(ref.captureDir, ATTEMPT_FILES.locator))
      ? readLocator(ref.captureDir)
      : undefined;
  return {
    async put(ref, locator, options = {}) {
      leases.check(options.fence);
      mkdirSync(ref.captureDir, { recursive: true, mode: 0o700 });
      await writeLocator(ref.captureDir, locator, { fsync: options.durable !== false });
    },
    get,
    async list(task) {
      const out: { ref: AttemptRef; locator: AttemptLocator }[] = [];
      let names: string[];
      try {
        names = readdirSync(attemptsDir);
      } catch {
        return out;
      }
      for (const name of names) {
        const captureDir = join(attemptsDir, name);
        const locator = await get({ attemptId: name, captureDir }).catch(() => undefined);
        if (!locator || (task !== undefined && locator.taskId !== task)) continue;
        out.push({ ref: { attemptId: locator.attemptId, captureDir }, locator });
      }
      return out.sort((a, b) => a.locator.startedAt.localeCompare(b.locator.startedAt));
    },
  };
}
