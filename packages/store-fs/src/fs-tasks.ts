import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type {
  TaskState,
  TaskStateChanges,
  TaskStateCursor,
  TaskStatePort,
  Versioned,
} from '@switchyard/core';
import {
  FINAL_PHASE,
  SwitchyardError,
  taskStateSchema,
  versionConflict,
} from '@switchyard/core/dry-run';
import { ensureOwnedDir, replaceFile } from '@switchyard/utils';
import type { FsLeases } from './fs-leases.js';
import { fsTaskChanges } from './fs-task-changes.js';
import { readTextIfExists, statKey } from './json-file.js';
import { taskFile } from './layout.js';
import type { Locked } from './locked.js';
import {
  type JournalRecord,
  journalLine,
  journalView,
  journalWriter,
  recordState,
} from './task-journal.js';

const HINT =
  'The file is written atomically, so this means it was edited or damaged by hand. Restore it, or delete it to let the task start over from its PLAN.';

/** The task-state port of the file store, and its compaction (the store's `close` runs it). */
export interface FsTaskStates extends TaskStatePort {
  /** Writes the journal's records to the task files and removes it (see {@link fsTasks}). */
  compact(): Promise<void>;
}

/** A journal past either bound is compacted after the write that passed it. */
export const JOURNAL_MAX_BYTES = 4 * 1024 * 1024;
export const JOURNAL_MAX_AGE_MS = 60_000;

/**
 * Task states, one JSON file per task at `tasks/<group>/<task>.json`, as before; the file also
 * carries its `revision` (the compare-and-set version; a file from before revisions counts as
 * 1). Replaced atomically without fsync: a dispatcher crash keeps the page cache, so the
 * rename is the commit point; a power loss may lose recent writes, but every agent dies with
 * the machine, so an older record only makes a stage run again later, never beside itself.
 *
 * Exclusive (the opener holds the workspace lock, so no other process writes these files):
 * a write appends a line to the task-state journal instead (task-journal.ts: no new file per
 * write; the writes of one tick share one append) and resolves once it is in the file, which
 * is as durable as the rename it replaces. A task's `done` state is still written to its file:
 * a finished task's file is its truth at rest. The journal is compacted (its records written
 * to the task files, then removed) when the store closes (the end of a run), when it passes
 * {@link JOURNAL_MAX_BYTES} or {@link JOURNAL_MAX_AGE_MS}, before a delete, and before the
 * first write of a run that finds one left by a crash. Reads (this process or any other, the
 * read-only entry too) overlay the journal over the task files, the higher revision winning;
 * they read the journal first, so a compaction between the two reads hides nothing. A crash
 * mid-compaction leaves the journal in place: its records are read as before.
 *
 * The compare-and-set checks the versions this process wrote, without a stat per check, and
 * the store lock covers the check and the version bump only, not the append; writes of one
 * task still commit in call order (the journal appends in call order, `replaceFile` queues
 * replacements), and `put` still resolves only once its write is done. Not exclusive (tests
 * with several holders, a command writing with no run): each write replaces the task file,
 * with a revision above the journal's, under the store's file mutex.
 */
export function fsTasks(
  workspace: string,
  stateDir: string,
  tasksDir: string,
  journalFile: string,
  locked: Locked,
  leases: FsLeases,
  now: () => number,
  exclusive = false,
): FsTaskStates {
  const fileOf = (task: string) => taskFile(tasksDir, task);
  const madeDirs = new Set<string>();
  // Exclusive: put leaves the lock before its write.
  const writes = inFlightWrites();
  const view = journalView(journalFile);
  const journal = exclusive ? journalWriter(journalFile) : undefined;
  // The journal the writer found at its first write (a crash's): compacted before appending.
  let recovered = false;
  // Revisions this process replaced task files with: a compaction never writes a record over
  // a newer one still queued for the same file.
  const fileVersions = new Map<string, number>();
  let compacting: Promise<void> | undefined;

  const overlay = () => view.refresh();
  const fromRecord = (task: string, record: JournalRecord) =>
    parseTaskState(journalFile, { ...(recordState(record) as object), task }, record.version);
  const newest = (task: string, records: ReadonlyMap<string, JournalRecord>) => {
    const record = records.get(task);
    const file = readTaskState(fileOf(task));
    return record && (!file || file.version < record.version) ? fromRecord(task, record) : file;
  };
  const { versions, check } = taskVersions(fileOf, exclusive, (task) => {
    return overlay().get(task)?.version ?? 0;
  });

  const ensureDir = (file: string) => {
    const dir = dirname(file);
    if (madeDirs.has(dir)) return;
    ensureOwnedDir(stateDir, dir); // 0700, no symlinked folder below the state dir
    madeDirs.add(dir);
  };
  const replaceTaskFile = (task: string, state: object, version: number) => {
    const file = fileOf(task);
    ensureDir(file);
    fileVersions.set(task, Math.max(fileVersions.get(task) ?? 0, version));
    const text = `${JSON.stringify({ ...state, revision: version }, null, 1)}\n`;
    return replaceFile(file, text, { durable: false });
  };

  // Under the lock: every record of the journal whose task file is older goes to that file,
  // then the journal is removed.
  const compactHeld = async () => {
    await journal?.drain();
    const records = overlay();
    if (records.size === 0 && !existsSync(journalFile)) return;
    const replaced: Promise<void>[] = [];
    for (const [task, record] of records) {
      if ((fileVersions.get(task) ?? 0) >= record.version) continue;
      if ((readTaskState(fileOf(task))?.version ?? 0) >= record.version) continue;
      replaced.push(replaceTaskFile(task, recordState(record) as object, record.version));
    }
    await Promise.all(replaced);
    if (journal) await journal.remove();
    else rmSync(journalFile, { force: true });
  };
  const compactSoon = () => {
    compacting ??= locked(compactHeld)
      .catch(() => undefined) // the next bound or the close tries again
      .finally(() => {
        compacting = undefined;
      });
  };
  // Under the lock, after `recover`.
  const appendRecord = (task: string, state: object, version: number) => {
    const writer = journal as NonNullable<typeof journal>;
    return writer.append(journalLine(task, version, state), now()).then(() => {
      const { bytes, openedAt } = writer.size();
      if (bytes > JOURNAL_MAX_BYTES || now() - openedAt > JOURNAL_MAX_AGE_MS) compactSoon();
    });
  };
  // Under the lock, before this process's first append: a journal a crash left is compacted.
  const recover = async () => {
    if (recovered) return;
    recovered = true;
    await compactHeld();
  };

  return {
    async get(task) {
      return newest(task, overlay());
    },
    async list() {
      const records = overlay();
      const out = new Map<string, Versioned<TaskState>>();
      for (const group of listDir(tasksDir).sort())
        for (const name of listDir(join(tasksDir, group)).sort())
          if (name.endsWith('.json')) {
            const entry = readTaskState(join(tasksDir, group, name));
            if (entry) out.set(entry.value.task, entry);
          }
      for (const [task, record] of records) {
        const file = out.get(task);
        if (!file || file.version < record.version) out.set(task, fromRecord(task, record));
      }
      return [...out.values()].sort((a, b) => byGroupThenName(a.value.task, b.value.task));
    },
    async changes(since) {
      return journalChanges(
        since,
        overlay(),
        (files) => fsTaskChanges(tasksDir, readTaskState, files),
        (task, record) => newest(task, new Map([[task, record]])),
        (task) => existsSync(fileOf(task)),
      );
    },
    put: (state, options) => {
      const file = fileOf(state.task);
      // Under the lock: the fence and version checks, then the write is queued.
      const start = async () => {
        leases.check(options.fence);
        check(state.task, options.expected);
        state.updatedAt = new Date(now()).toISOString();
        const version = options.expected + 1;
        const toJournal = journal !== undefined && state.phase !== FINAL_PHASE;
        if (toJournal) {
          if (!madeDirs.has(stateDir)) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
          madeDirs.add(stateDir);
          await recover();
        }
        const written = toJournal
          ? appendRecord(state.task, state, version)
          : replaceTaskFile(state.task, state, version);
        if (exclusive) versions.set(state.task, { key: '', version });
        writes.track(state.task, written);
        return { version, written };
      };
      const commit = async ({ version, written }: Awaited<ReturnType<typeof start>>) => {
        try {
          await written;
        } catch (error) {
          versions.delete(state.task); // read the file and journal again on the next check
          throw error;
        }
        if (!exclusive) versions.set(state.task, { key: statKey(file), version });
        return version;
      };
      return exclusive ? locked(start).then(commit) : locked(async () => commit(await start()));
    },
    delete: (task, options) =>
      locked(async () => {
        leases.check(options.fence);
        check(task, options.expected);
        await writes.of(task); // a queued write must not bring the task back
        // A journal record would bring it back too: the journal goes to the files first.
        if (overlay().has(task)) await compactHeld();
        rmSync(fileOf(task), { force: true });
        versions.delete(task);
        fileVersions.delete(task);
      }),
    locate: (task) => relative(workspace, fileOf(task)),
    async compact() {
      await compacting;
      // No journal, none being written: nothing to lock for (a reader's close creates nothing).
      if (!journal?.size().open && !existsSync(journalFile)) return;
      await locked(compactHeld);
    },
  };
}

/** Task ids in the order of the task folders: by group, then by name. */
function byGroupThenName(a: string, b: string): number {
  const [ga = '', na = ''] = a.split(/\/(.*)/s);
  const [gb = '', nb = ''] = b.split(/\/(.*)/s);
  if (ga !== gb) return ga < gb ? -1 : 1;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The file store's change cursor: the task folders' (fs-task-changes.ts) and the journal's. */
interface JournalCursor {
  files: TaskStateCursor | undefined;
  journal: ReadonlyMap<string, number>;
}

/**
 * `changes` over the task files and the journal: the files' changes (each replaced by the
 * journal's record when that is newer), and every task whose journal record is not the one
 * the cursor saw. The journal is read before the files (see {@link fsTasks}).
 */
function journalChanges(
  since: TaskStateCursor | undefined,
  records: ReadonlyMap<string, JournalRecord>,
  fileChanges: (files: TaskStateCursor | undefined) => TaskStateChanges,
  newest: (task: string, record: JournalRecord) => Versioned<TaskState> | undefined,
  inFile: (task: string) => boolean,
): TaskStateChanges {
  const last = since as unknown as JournalCursor | undefined;
  const files = fileChanges(last?.files);
  const changed = new Map<string, Versioned<TaskState>>();
  for (const entry of files.changed) changed.set(entry.value.task, entry);
  const seen = new Map<string, number>();
  for (const [task, record] of records) {
    seen.set(task, record.version);
    const fromFile = changed.get(task);
    if (fromFile ? fromFile.version >= record.version : last?.journal.get(task) === record.version)
      continue;
    const entry = newest(task, record);
    if (entry) changed.set(task, entry);
  }
  const removed = new Set(files.removed.filter((task) => !records.has(task)));
  // Gone from the journal (compacted, or deleted after a compaction) and from the files.
  for (const task of last?.journal.keys() ?? [])
    if (!records.has(task) && !changed.has(task) && !inFile(task)) removed.add(task);
  const cursor: JournalCursor = { files: files.cursor, journal: seen };
  return {
    changed: [...changed.values()].sort((a, b) => byGroupThenName(a.value.task, b.value.task)),
    removed: [...removed].sort(),
    cursor: cursor as unknown as TaskStateCursor,
  };
}

/** A task's state file and its version; undefined when there is none. */
function readTaskState(file: string): Versioned<TaskState> | undefined {
  const text = readTextIfExists(file);
  if (text === undefined) return undefined;
  let raw: { revision?: unknown };
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw stateCorrupt(file, (error as Error).message, error);
  }
  return parseTaskState(file, raw, typeof raw.revision === 'number' ? raw.revision : 1);
}

/** A task state read from `file` (a task file or the journal), checked against the schema. */
function parseTaskState(file: string, raw: unknown, version: number): Versioned<TaskState> {
  const parsed = taskStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw stateCorrupt(
      file,
      `${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      parsed.error,
    );
  }
  return { value: parsed.data, version };
}

/**
 * The version of each task's file as this process last saw it, keyed by the file's identity
 * (exclusive: the version this process wrote, with no stat), and the compare-and-set check.
 */
function taskVersions(
  fileOf: (task: string) => string,
  exclusive: boolean,
  journalVersion: (task: string) => number,
) {
  const versions = new Map<string, { key: string; version: number }>();
  const fileVersion = (task: string): number => {
    const file = fileOf(task);
    const key = statKey(file);
    if (key === 'absent') return 0;
    const cached = versions.get(task);
    if (cached?.key === key) return cached.version;
    const version = readTaskState(file)?.version ?? 0;
    versions.set(task, { key, version });
    return version;
  };
  const versionOf = (task: string): number => {
    const known = versions.get(task);
    if (exclusive && known) return known.version;
    const journal = journalVersion(task); // before the file: see fsTasks
    return Math.max(journal, fileVersion(task));
  };
  const check = (task: string, expected: number) => {
    const actual = versionOf(task);
    if (actual !== expected) throw versionConflict(`The state of ${task}`, expected, actual);
  };

  return { versions, check };
}

/** The last replacement of each task's file still in flight, settled either way. */
function inFlightWrites() {
  const writes = new Map<string, Promise<void>>();
  return {
    track(task: string, written: Promise<void>): void {
      const settled = written.then(
        () => undefined,
        () => undefined,
      );
      writes.set(task, settled);
      void settled.then(() => {
        if (writes.get(task) === settled) writes.delete(task);
      });
    },
    of: (task: string): Promise<void> | undefined => writes.get(task),
  };
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function stateCorrupt(file: string, detail: string, cause: unknown): SwitchyardError {
  return new SwitchyardError('SY_STATE_CORRUPT', `Cannot read dispatcher state: ${detail}`, {
    file,
    cause,
    hint: HINT,
  });
}
