import type { BacklogView } from '@switchyard/core';

/**
 * Tasks of a shared backlog that cannot move without a human: the blocked ones and every task
 * whose dependency closure holds one (the backlog never delivers them, as one machine's
 * admission never admits them). A dispatcher waiting for these would wait forever, so it
 * counts them as ended, as a run on one machine ends with its dependency-blocked tasks.
 * A dependency the backlog does not have, or a cycle, holds its dependents for good as well.
 */
export function stuckInBacklog(views: ReadonlyMap<string, BacklogView>): Set<string> {
  const stuck = new Set<string>();
  const free = new Set<string>();
  const visiting = new Set<string>();
  const isStuck = (task: string): boolean => {
    if (stuck.has(task)) return true;
    if (free.has(task)) return false;
    const view = views.get(task);
    if (!view) return true;
    if (view.status === 'blocked') {
      stuck.add(task);
      return true;
    }
    if (view.status !== 'waiting') return false;
    // A waiting task met again on its own dependency path is in a cycle: never delivered.
    if (visiting.has(task)) return true;
    visiting.add(task);
    const blocked = (view.dependsOn ?? []).some(
      (dep) => views.get(dep)?.status !== 'archived' && isStuck(dep),
    );
    visiting.delete(task);
    (blocked ? stuck : free).add(task);
    return blocked;
  };
  for (const task of views.keys()) isStuck(task);
  return stuck;
}
