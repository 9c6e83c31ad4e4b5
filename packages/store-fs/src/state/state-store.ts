import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SwitchyardError, type TaskState, taskStateSchema } from '@switchyard/core/dry-run';
import { ensureOwnedDir, replaceFile } from '@switchyard/utils';
import { TASK_STATE_CORRUPT_HINT } from '../json-file.js';

/** Reads and atomically replaces the per-task state files under a state directory. */
export interface StateStore {
  readonly stateDir: string;
  /** Path of a task's state file. */
  fileOf(task: string): string;
  /** The task's state, or undefined when it has none. Throws `SY_STATE_CORRUPT`. */
  read(task: string): TaskState | undefined;
  /** Replaces the task's state atomically (temp file + rename; see the write for why no fsync). */
  write(state: TaskState): Promise<void>;
  /** Every task state on disk (sorted by task id). */
  list(): TaskState[];
}

/** Opens the store at `<stateDir>/tasks/<group>/<task>.json`. */
export function openStateStore(
  stateDir: string,
  options: { replacer?: (key: string, value: unknown) => unknown } = {},
): StateStore {
  const root = join(stateDir, 'tasks');
  const fileOf = (task: string) => join(root, `${task}.json`);
  const madeDirs = new Set<string>();
  const read = (file: string): TaskState => {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw corrupt(file, error instanceof Error ? error.message : String(error), error);
    }
    const parsed = taskStateSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw corrupt(file, `${issue?.path.join('.') || '(root)'}: ${issue?.message}`, parsed.error);
    }
    return parsed.data;
  };
  return {
    stateDir,
    fileOf,
    read(task) {
      const file = fileOf(task);
      try {
        return read(file);
      } catch (error) {
        if (SwitchyardError.is(error) && (error.cause as NodeJS.ErrnoException)?.code === 'ENOENT')
          return undefined;
        throw error;
      }
    },
    async write(state) {
      const file = fileOf(state.task);
      const dir = dirname(file);
      if (!madeDirs.has(dir)) {
        ensureOwnedDir(stateDir, dir); // 0700, no symlinked folder below the state dir
        madeDirs.add(dir);
      }
      state.updatedAt = new Date().toISOString();
      // Atomic without fsync: a dispatcher crash keeps the page cache, so the rename is the
      // commit point. A power loss may lose recent writes, but every agent dies with the
      // machine, so an older record can only make a stage run again later, never beside
      // itself; a torn or empty file fails to parse and stops the run as SY_STATE_CORRUPT
      // naming the file. Claims, which other processes rely on, stay fsynced.
      // `replacer`: the run's secret redaction (agent evidence quoted in state).
      await replaceFile(file, `${JSON.stringify(state, options.replacer, 1)}\n`, {
        durable: false,
      });
    },
    list() {
      const states: TaskState[] = [];
      let groups: string[];
      try {
        groups = readdirSync(root);
      } catch {
        return states;
      }
      for (const group of groups.sort()) {
        let files: string[];
        try {
          files = readdirSync(join(root, group));
        } catch {
          continue;
        }
        for (const name of files.sort()) {
          if (name.endsWith('.json')) states.push(read(join(root, group, name)));
        }
      }
      return states;
    },
  };
}

function corrupt(file: string, detail: string, cause: unknown): SwitchyardError {
  return new SwitchyardError('SY_STATE_CORRUPT', `Cannot read dispatcher state: ${detail}`, {
    file,
    cause,
    hint: TASK_STATE_CORRUPT_HINT,
  });
}
