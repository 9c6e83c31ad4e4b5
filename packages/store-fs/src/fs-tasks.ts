import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { TaskState, TaskStatePort, Versioned } from '@switchyard/core';
import { SwitchyardError, taskStateSchema, versionConflict } from '@switchyard/core/dry-run';
import { ensureOwnedDir, replaceFile } from '@switchyard/utils';
import type { FsLeases } from './fs-leases.js';
import { fsTaskChanges } from './fs-task-changes.js';
import { readTextIfExists, statKey, TASK_STATE_CORRUPT_HINT } from './json-file.js';
import { taskFile } from './layout.js';
import type { Locked } from './locked.js';

/**
 * Task states, one JSON file per task at `tasks/<group>/<task>.json`, as before; the file also
 * carries its `revision` (the compare-and-set version; a file from before revisions counts as
 * 1). Replaced atomically without fsync: a dispatcher crash keeps the page cache, so the
 * rename is the commit point; a power loss may lose recent writes, but every agent dies with
 * the machine, so an older record only makes a stage run again later, never beside itself.
 *
 * Exclusive (the opener holds the workspace lock, so no other process writes these files):
 * the compare-and-set checks the versions this process wrote, without a stat per check, and
 * the store lock covers the check and the version bump only, not the rename; replacements of
 * one file still commit in call order (`replaceFile` queues them), and `put` still resolves
 * only once its rename is done.
 */
export function fsTasks(
  workspace: string,
  stateDir: string,
  tasksDir: string,
  locked: Locked,
  leases: FsLeases,
  now: () => number,
  exclusive = false,
): TaskStatePort {
  const fileOf = (task: string) => taskFile(tasksDir, task);
  const madeDirs = new Set<string>();
  // Exclusive: put leaves the lock before its rename.
  const writes = inFlightWrites();

  const { versions, check } = taskVersions(fileOf, exclusive);

  return {
    async get(task) {
      return readTaskState(fileOf(task));
    },
    async list() {
      const out: Versioned<TaskState>[] = [];
      for (const group of listDir(tasksDir).sort())
        for (const name of listDir(join(tasksDir, group)).sort())
          if (name.endsWith('.json')) {
            const entry = readTaskState(join(tasksDir, group, name));
            if (entry) out.push(entry);
          }
      return out;
    },
    async changes(since) {
      return fsTaskChanges(tasksDir, readTaskState, since);
    },
    put: (state, options) => {
      const file = fileOf(state.task);
      // Under the lock: the fence and version checks, then the replacement is queued.
      const start = () => {
        leases.check(options.fence);
        check(state.task, options.expected);
        const dir = dirname(file);
        if (!madeDirs.has(dir)) {
          ensureOwnedDir(stateDir, dir); // 0700, no symlinked folder below the state dir
          madeDirs.add(dir);
        }
        state.updatedAt = new Date(now()).toISOString();
        const version = options.expected + 1;
        const text = `${JSON.stringify({ ...state, revision: version }, null, 1)}\n`;
        const written = replaceFile(file, text, { durable: false });
        if (exclusive) versions.set(state.task, { key: '', version });
        writes.track(state.task, written);
        return { version, written };
      };
      const commit = async ({ version, written }: ReturnType<typeof start>) => {
        try {
          await written;
        } catch (error) {
          versions.delete(state.task); // read the file again on the next check
          throw error;
        }
        if (!exclusive) versions.set(state.task, { key: statKey(file), version });
        return version;
      };
      return exclusive ? locked(start).then(commit) : locked(async () => commit(start()));
    },
    delete: (task, options) =>
      locked(async () => {
        leases.check(options.fence);
        check(task, options.expected);
        await writes.of(task); // a queued replacement must not bring the file back
        rmSync(fileOf(task), { force: true });
        versions.delete(task);
      }),
    locate: (task) => relative(workspace, fileOf(task)),
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
  const parsed = taskStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw stateCorrupt(
      file,
      `${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      parsed.error,
    );
  }
  const version = typeof raw.revision === 'number' ? raw.revision : 1;
  return { value: parsed.data, version };
}

/**
 * The version of each task's file as this process last saw it, keyed by the file's identity
 * (exclusive: the version this process wrote, with no stat), and the compare-and-set check.
 */
function taskVersions(fileOf: (task: string) => string, exclusive: boolean) {
  const versions = new Map<string, { key: string; version: number }>();
  const versionOf = (task: string): number => {
    const known = versions.get(task);
    if (exclusive && known) return known.version;
    const file = fileOf(task);
    const key = statKey(file);
    if (key === 'absent') return 0;
    const cached = versions.get(task);
    if (cached?.key === key) return cached.version;
    const version = readTaskState(file)?.version ?? 0;
    versions.set(task, { key, version });
    return version;
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
    hint: TASK_STATE_CORRUPT_HINT,
  });
}
