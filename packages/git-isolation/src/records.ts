import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  type ApplyJournal,
  type ApplyStep,
  applyJournalSchema,
  SwitchyardError,
  type TaskId,
  type WorktreeRecord,
  worktreeRecordSchema,
} from '@switchyard/core';
import { replaceFile } from '@switchyard/utils';
import type { z } from 'zod';
import { type IsolationLayout, journalFile, recordFile } from './layout.js';

async function readJson<S extends z.ZodType>(
  file: string,
  schema: S,
): Promise<z.output<S> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: z.ZodSafeParseResult<z.output<S>>;
  try {
    parsed = schema.safeParse(JSON.parse(text));
  } catch (error) {
    throw corrupt(file, (error as Error).message);
  }
  if (!parsed.success)
    throw corrupt(
      file,
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  return parsed.data;
}

const corrupt = (file: string, why: string) =>
  new SwitchyardError('SY_STATE_CORRUPT', `${file} cannot be read: ${why}`, {
    file,
    hint: 'restore it from a backup, or remove it and run `switchyard clean` to drop the worktree it described',
  });

// Every record and journal write is atomic: a crash leaves the old or the new one. Durable
// (fsynced) unless the caller knows that losing it to a power cut changes nothing.
async function writeJson(file: string, value: unknown, durable = true): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await replaceFile(file, `${JSON.stringify(value, null, 2)}\n`, { durable });
}

/**
 * Journal steps written with an fsync: those whose loss would change what recovery does.
 * `advance` comes before the source branch moves (without it recovery would discard an
 * apply that had moved the source) and `verified` is the commit point (without it a passed
 * apply would be rolled back). Losing any other step leaves the one before it, which
 * recovery treats the same way: `commit` and `rebase` (or no journal) discard, `dod`,
 * `rollback` and `rolled-back` roll back like `advance`. A process crash loses none of
 * them: each is on disk (page cache) before its step is taken.
 */
const DURABLE_STEPS: ReadonlySet<ApplyStep> = new Set<ApplyStep>(['advance', 'verified']);

async function remove(file: string): Promise<void> {
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

export const readRecord = (layout: IsolationLayout, taskId: TaskId) =>
  readJson(recordFile(layout, taskId), worktreeRecordSchema);

export const writeRecord = (layout: IsolationLayout, record: WorktreeRecord, durable = true) =>
  writeJson(recordFile(layout, record.taskId), worktreeRecordSchema.parse(record), durable);

export const removeRecord = (layout: IsolationLayout, taskId: TaskId) =>
  remove(recordFile(layout, taskId));

export const readJournal = (layout: IsolationLayout, taskId: TaskId) =>
  readJson(journalFile(layout, taskId), applyJournalSchema);

export const removeJournal = (layout: IsolationLayout, taskId: TaskId) =>
  remove(journalFile(layout, taskId));

/** Records `step` (with the fields it needs) in the journal; returns the journal as written. */
export async function recordStep(
  layout: IsolationLayout,
  journal: ApplyJournal,
  step: ApplyStep,
  fields: Partial<ApplyJournal> = {},
): Promise<ApplyJournal> {
  const next: ApplyJournal = {
    ...journal,
    ...fields,
    step,
    history: [...journal.history, { step, at: new Date().toISOString() }],
  };
  await writeJson(
    journalFile(layout, journal.taskId),
    applyJournalSchema.parse(next),
    DURABLE_STEPS.has(step),
  );
  return next;
}

/** Task ids of every `<dir>/<group>/<task>.json`, sorted. */
export async function listTaskFiles(dir: string): Promise<TaskId[]> {
  const ids: TaskId[] = [];
  const groups = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const group of groups) {
    if (!group.isDirectory()) continue;
    for (const name of await readdir(join(dir, group.name)).catch(() => [] as string[]))
      if (name.endsWith('.json')) ids.push(`${group.name}/${name.slice(0, -'.json'.length)}`);
  }
  return ids.sort();
}
