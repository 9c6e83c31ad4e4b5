// Search and filter of the task cards: words (each must match the task's id, state, why,
// target or plan title) and states to show. Cards that do not match are hidden, and so is a
// lane left with none; the layout stays (columns are the DAG's).
import type { Snapshot, TaskView } from './types.js';

const STATES = ['running', 'waiting', 'blocked', 'done'] as const;
const shown = new Set<string>(STATES);
let words: string[] = [];

/** The filter bar's HTML (once). */
export function filterBarHtml(): string {
  return (
    `<label class="search">filter <input id="filter" type="search" placeholder="task, state, target, reason… (all words)" autocomplete="off"></label>` +
    STATES.map(
      (s) =>
        `<label class="c-${s}"><input type="checkbox" data-show-state="${s}" checked> ${s}</label>`,
    ).join(' ') +
    ` <span id="filter-count" class="hint"></span>`
  );
}

/** Reads the filter bar's inputs. */
export function readFilter(): void {
  const input = document.getElementById('filter') as HTMLInputElement | null;
  words = (input?.value ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  for (const box of document.querySelectorAll<HTMLInputElement>('[data-show-state]')) {
    if (box.checked) shown.add(box.dataset.showState!);
    else shown.delete(box.dataset.showState!);
  }
}

function matches(t: TaskView, s: Snapshot): boolean {
  if (!shown.has(t.state)) return false;
  if (words.length === 0) return true;
  const plan = s.plans?.[t.group];
  const text = [
    t.id,
    t.state,
    t.why,
    t.running?.target,
    t.running?.role,
    t.blocked?.class,
    plan?.title,
  ]
    .join(' ')
    .toLowerCase();
  return words.every((w) => text.includes(w));
}

/** Hides the cards (and lanes) the filter leaves out; says how many match. */
export function applyFilter(s: Snapshot): void {
  const byId = new Map(s.tasks.map((t) => [t.id, t]));
  for (const el of document.querySelectorAll<HTMLElement>('#lanes .task')) {
    const t = byId.get(el.dataset.task!);
    el.hidden = !t || !matches(t, s);
  }
  const visible = s.tasks.filter((t) => matches(t, s)).length;
  const active = words.length > 0 || shown.size < STATES.length;
  for (const lane of document.querySelectorAll<HTMLElement>('#lanes .lane')) {
    const group = lane.dataset.group!;
    lane.hidden = active && !s.tasks.some((t) => t.group === group && matches(t, s));
  }
  const count = document.getElementById('filter-count');
  if (count) count.textContent = active ? `${visible} of ${s.tasks.length} tasks match` : '';
}
