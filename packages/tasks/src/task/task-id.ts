import type { TaskId } from '@switchyard/core';

/** Folders of `agent-task/` that switchyard writes itself: the archive, the retrospectives. */
const RESERVED_GROUPS = new Set(['archive', 'retros']);

/** Group names that are not task groups: switchyard's own folders and anything starting with a dot. */
export function isReservedGroupName(name: string): boolean {
  return RESERVED_GROUPS.has(name) || name.startsWith('.');
}

/** True when a folder name can be a group or task name (non-empty, no slash, not `.`/`..`). */
export function isValidName(name: string): boolean {
  return (
    name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\\')
  );
}

/** Builds a task id `<group>/<task>`. */
export function taskId(group: string, task: string): TaskId {
  return `${group}/${task}`;
}

/** Splits a task id into group and task. */
export function splitTaskId(id: TaskId): { group: string; task: string } {
  const slash = id.indexOf('/');
  return { group: id.slice(0, slash), task: id.slice(slash + 1) };
}

/**
 * Resolves a `depends_on` entry: `task` means a task of the same group, `group/task` a
 * task of another group. Returns undefined when the entry is malformed.
 */
export function resolveDependency(raw: string, group: string): TaskId | undefined {
  const parts = raw.split('/');
  if (parts.length === 1 && isValidName(parts[0] ?? '')) return taskId(group, parts[0] as string);
  if (
    parts.length === 2 &&
    parts.every((p) => isValidName(p)) &&
    !isReservedGroupName(parts[0] as string)
  )
    return taskId(parts[0] as string, parts[1] as string);
  return undefined;
}
