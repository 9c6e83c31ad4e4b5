import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IsolationPort } from '@switchyard/core';
import { applyJournalSchema, worktreeRecordSchema } from '@switchyard/core/dry-run';
import { ensureOwnedDir, replaceFile } from '@switchyard/utils';
import type { z } from 'zod';
import type { FsLeases } from './fs-leases.js';
import { corrupt, readJson } from './json-file.js';
import { taskFile } from './layout.js';

const HINT =
  'restore it from a backup, or remove it and run `switchyard clean` to drop the worktree it described';

/**
 * Worktree records (`isolation/worktrees/<group>/<task>.json`) and apply journals
 * (`isolation/apply/<group>/<task>.json`), as before: each replaced atomically, fsynced unless
 * the write says its loss to a power cut changes nothing recovery does. The `isolation/`
 * folder carries a `.gitignore` of `*`, so the source repository never sees them.
 */
export function fsIsolation(
  stateDir: string,
  recordsDir: string,
  journalsDir: string,
  leases: FsLeases,
): IsolationPort {
  const read = <S extends z.ZodType>(file: string, schema: S): z.output<S> | undefined => {
    const raw = readJson(file, HINT);
    if (raw === undefined) return undefined;
    const parsed = schema.safeParse(raw);
    if (!parsed.success)
      throw corrupt(
        file,
        parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        HINT,
      );
    return parsed.data;
  };
  const write = async (file: string, value: unknown, durable: boolean) => {
    const top = dirname(recordsDir);
    if (!existsSync(join(top, '.gitignore'))) {
      ensureOwnedDir(stateDir, top);
      writeFileSync(join(top, '.gitignore'), '*\n');
    }
    ensureOwnedDir(stateDir, dirname(file));
    await replaceFile(file, `${JSON.stringify(value, null, 2)}\n`, { durable });
  };
  return {
    getRecord: async (task) => read(taskFile(recordsDir, task), worktreeRecordSchema),
    async putRecord(record, options = {}) {
      leases.check(options.fence);
      await write(
        taskFile(recordsDir, record.taskId),
        worktreeRecordSchema.parse(record),
        options.durable !== false,
      );
    },
    async removeRecord(task, options) {
      leases.check(options?.fence);
      rmSync(taskFile(recordsDir, task), { force: true });
    },
    recordTasks: async () => taskIds(recordsDir),
    getJournal: async (task) => read(taskFile(journalsDir, task), applyJournalSchema),
    async putJournal(journal, options = {}) {
      leases.check(options.fence);
      await write(
        taskFile(journalsDir, journal.taskId),
        applyJournalSchema.parse(journal),
        options.durable !== false,
      );
    },
    async removeJournal(task, options) {
      leases.check(options?.fence);
      rmSync(taskFile(journalsDir, task), { force: true });
    },
    journalTasks: async () => taskIds(journalsDir),
  };
}

/** Task ids of every `<dir>/<group>/<task>.json`, sorted. */
function taskIds(dir: string): string[] {
  const ids: string[] = [];
  for (const group of list(dir))
    for (const name of list(join(dir, group)))
      if (name.endsWith('.json')) ids.push(`${group}/${name.slice(0, -'.json'.length)}`);
  return ids.sort();
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
