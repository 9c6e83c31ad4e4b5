import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  AGENT_TASK_DIR,
  ARCHIVE_DIR,
  COMPLETE_LOG,
  type Problem,
  STATE_DIR,
  SwitchyardError,
} from '@switchyard/core';

// Files the dispatcher writes inside a group or task folder.
const GROUP_FILES = ['WORK_LOG.md'];
const TASK_FILES = [COMPLETE_LOG];
// Archived group work logs, `agent-task/archive/<group>/work_log_<N>.log`.
const ARCHIVED_WORK_LOG = /^work_log_\d+\.log$/;

type Kind = 'missing' | 'dir' | 'file' | 'symlink' | 'special' | 'hard-linked';

// A file with a second name may be the same inode as a file outside the workspace: appending
// to it would write there, O_NOFOLLOW or not.
const lstatKind = (path: string): Kind => {
  try {
    const s = lstatSync(path);
    if (s.isSymbolicLink()) return 'symlink';
    if (s.isDirectory()) return 'dir';
    if (!s.isFile()) return 'special';
    return s.nlink > 1 ? 'hard-linked' : 'file';
  } catch {
    return 'missing';
  }
};

const KIND_TEXT: Record<string, string> = {
  symlink: 'a symlink',
  file: 'a file, not a folder',
  'hard-linked': 'a file with several hard links (another name may lie outside the workspace)',
  special: 'a special file (FIFO, device or socket)',
};

const list = (dir: string): Dirent[] => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
};

/**
 * Finds every symlink or special file among the paths the dispatcher treats as its own:
 * `agent-task/`, the whole `agent-task/.switchyard/` tree, `archive/` with its group and
 * task folders, every group and task folder, `WORK_LOG.md` and `complete.log`. `workspace`
 * is the workspace's real path. One problem per path found.
 */
export function findUnsafeOwnedPaths(workspace: string): Problem[] {
  const problems: Problem[] = [];
  const flag = (path: string, kind: string) =>
    problems.push({
      code: 'SY_UNSAFE_PATH',
      message: `${path} is ${KIND_TEXT[kind] ?? 'a special file'}; switchyard does not follow symlinks in its own files and folders`,
      file: path,
      hint:
        kind === 'symlink'
          ? 'replace the symlink by a real folder or file (or remove it), then run again'
          : 'remove it, then run again',
      severity: 'error',
    });
  const expectDir = (path: string): boolean => {
    const kind = lstatKind(path);
    if (kind === 'dir') return true;
    if (kind !== 'missing') flag(path, kind);
    return false;
  };
  const expectFile = (path: string) => {
    const kind = lstatKind(path);
    if (kind !== 'missing' && kind !== 'file') flag(path, kind);
  };
  const root = join(workspace, AGENT_TASK_DIR);
  if (!expectDir(root)) return problems;
  // The state tree: every entry, at any depth.
  const walk = (dir: string) => {
    for (const entry of list(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const kind = lstatKind(path);
        if (kind !== 'file' && kind !== 'missing') flag(path, kind);
      }
    }
  };
  const state = join(root, STATE_DIR);
  if (expectDir(state)) walk(state);
  for (const group of list(root)) {
    if (group.name === STATE_DIR) continue;
    const groupDir = join(root, group.name);
    if (group.name.startsWith('.')) continue;
    if (!expectDir(groupDir)) continue;
    if (group.name === ARCHIVE_DIR) {
      for (const archived of list(groupDir)) {
        const archivedGroup = join(groupDir, archived.name);
        if (!expectDir(archivedGroup)) continue;
        for (const task of list(archivedGroup)) {
          const taskDir = join(archivedGroup, task.name);
          // The group's archived work logs sit beside its task folders.
          if (ARCHIVED_WORK_LOG.test(task.name)) expectFile(taskDir);
          else if (expectDir(taskDir)) for (const f of TASK_FILES) expectFile(join(taskDir, f));
        }
      }
      continue;
    }
    for (const f of GROUP_FILES) expectFile(join(groupDir, f));
    for (const task of list(groupDir)) {
      if (task.name.startsWith('.') || GROUP_FILES.includes(task.name)) continue;
      if (task.isSymbolicLink()) flag(join(groupDir, task.name), 'symlink');
      else if (task.isDirectory())
        for (const f of TASK_FILES) expectFile(join(groupDir, task.name, f));
    }
  }
  return problems;
}

/** Throws `SY_UNSAFE_PATH` (exit 2) listing every unsafe dispatcher-owned path, if any. */
export function assertSafeOwnedPaths(workspace: string): void {
  const problems = findUnsafeOwnedPaths(workspace);
  if (problems.length === 0) return;
  throw new SwitchyardError(
    'SY_UNSAFE_PATH',
    `${problems.length} of switchyard's own files or folders ${problems.length === 1 ? 'is a symlink or special file' : 'are symlinks or special files'}; nothing was written`,
    {
      problems,
      hint: 'replace each listed path by a real folder or file (or remove it), then run again',
    },
  );
}
