import { closeSync, fstatSync, fsync, fsyncSync, lstatSync, writeSync } from 'node:fs';
import { openOwnedFile } from '@switchyard/utils';
import { workLogPath } from './worklog/work-log.js';
import { WORK_LOG_HEADER } from './worklog/work-log-format.js';

/** How long a written row waits for others to share its background fsync. */
const SYNC_DELAY_MS = 100;

/** The open O_APPEND descriptor of each group's work log, and its background fsyncs. */
export interface WorkLogFiles {
  /** The group's descriptor, opened again when the log was moved or replaced (created with its header). */
  open(group: string): number;
  /** Schedules the group's background fsync. */
  sync(group: string): void;
  /** Forgets the group's descriptor (closed once a running fsync ends). */
  drop(group: string): void;
  /** Fsyncs and closes the group's descriptor; a failed fsync is kept for {@link takeError}. */
  closeGroup(group: string): void;
  /** The groups with an open descriptor. */
  groups(): string[];
  /** The last fsync failure since the last call, if any. */
  takeError(): string | undefined;
}

export function workLogFiles(workspace: string): WorkLogFiles {
  const fds = new Map<string, number>();
  const syncing = new Set<string>();
  let syncError: string | undefined;

  const open = (group: string): number => {
    const file = workLogPath(workspace, group);
    const fd = fds.get(group);
    if (fd !== undefined) {
      if (isStillAt(fd, file)) return fd;
      drop(group); // moved, deleted or replaced since it was opened
    }
    let opened: number;
    try {
      opened = openOwnedFile(file, 'create');
      writeSync(opened, WORK_LOG_HEADER(group));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      opened = openOwnedFile(file, 'append');
    }
    fds.set(group, opened);
    return opened;
  };
  // One background fsync per group at a time, started a moment after the first unsynced row,
  // so the rows of the attempts that start and finish meanwhile share it (each row is already
  // written, and survives a dispatcher crash, before `append` resolves).
  const sync = (group: string) => {
    if (!fds.has(group) || syncing.has(group)) return;
    syncing.add(group);
    setTimeout(() => {
      const fd = fds.get(group);
      if (fd === undefined) {
        syncing.delete(group); // closed meanwhile, and fsynced when it was
        return;
      }
      fsync(fd, (error) => {
        syncing.delete(group);
        if (error) syncError = `Cannot flush the work log of ${group}: ${error.message}`;
      });
    }, SYNC_DELAY_MS).unref();
  };
  const drop = (group: string) => {
    const fd = fds.get(group);
    fds.delete(group);
    if (fd === undefined) return;
    if (syncing.has(group)) fsync(fd, () => closeSync(fd));
    else closeSync(fd);
  };
  const closeGroup = (group: string) => {
    const fd = fds.get(group);
    if (fd === undefined) return;
    try {
      fsyncSync(fd);
    } catch (error) {
      syncError = `Cannot flush the work log of ${group}: ${(error as Error).message}`;
    }
    drop(group);
  };

  return {
    open,
    sync,
    drop,
    closeGroup,
    groups: () => [...fds.keys()],
    takeError() {
      const error = syncError;
      syncError = undefined;
      return error;
    },
  };
}

/** Whether an open descriptor is still the file at `path` (same device and inode). */
function isStillAt(fd: number, path: string): boolean {
  const atPath = lstatSync(path, { throwIfNoEntry: false });
  if (!atPath) return false;
  const open = fstatSync(fd);
  return open.ino === atPath.ino && open.dev === atPath.dev;
}
