/**
 * True when a group's log may be archived: every task observed in the group during the run
 * is archived and none has a live attempt.
 */
export function isGroupLogArchivable(
  observedTasks: Iterable<string>,
  isArchived: (task: string) => boolean,
  isIdle: (task: string) => boolean,
): boolean {
  let any = false;
  for (const task of observedTasks) {
    any = true;
    if (!isArchived(task) || !isIdle(task)) return false;
  }
  return any;
}
