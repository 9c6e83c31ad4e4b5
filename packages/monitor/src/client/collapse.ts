// Lanes folded to one line each: a graph of hundreds of tasks stays readable when the lanes
// one is not looking at are closed. The user's choice wins; until a lane was toggled by hand,
// a large graph starts with its finished lanes folded.
import type { TaskView } from './types.js';

/** From this many tasks on, lanes whose tasks are all done start folded. */
export const LARGE_GRAPH = 200;

const folded = new Set<string>();
const chosen = new Set<string>();

/** Whether a lane shows only its counts (the user's choice, else done lanes of a large graph). */
export function isFolded(group: string, tasks: TaskView[], total: number): boolean {
  if (chosen.has(group)) return folded.has(group);
  return total >= LARGE_GRAPH && tasks.length > 0 && tasks.every((t) => t.state === 'done');
}

/** Records the user's choice for one lane. */
export function setFolded(group: string, fold: boolean): void {
  chosen.add(group);
  if (fold) folded.add(group);
  else folded.delete(group);
}

/** How many tasks of a lane are in each state, as one short line. */
export function laneCounts(tasks: TaskView[]): string {
  const n = { running: 0, waiting: 0, blocked: 0, done: 0 };
  for (const t of tasks) n[t.state] += 1;
  return (['running', 'waiting', 'blocked', 'done'] as const)
    .filter((s) => n[s] > 0)
    .map((s) => `<span class="c-${s}">${n[s]} ${s}</span>`)
    .join(' · ');
}

/**
 * The lane a task is drawn in: its group, or within a YAML plan's group the plan's own lane
 * (`<group>#<lane id>`), so the page shows the plan's lanes with their labels.
 */
export function laneKey(t: Pick<TaskView, 'group' | 'lane'>): string {
  return t.lane ? `${t.group}#${t.lane.id}` : t.group;
}

/** A lane's heading: the group, and a YAML plan lane's label and id. */
export function laneTitle(t: Pick<TaskView, 'group' | 'lane'>): string {
  if (!t.lane) return t.group;
  return `${t.group} · ${t.lane.label ?? `lane ${t.lane.id}`}${t.lane.label ? ` (lane ${t.lane.id})` : ''}`;
}
