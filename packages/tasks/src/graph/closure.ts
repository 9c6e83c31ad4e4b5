import type { TaskId } from '@switchyard/core';
import type { TaskGraph } from './task-graph.js';

function walk(from: Iterable<TaskId>, edges: ReadonlyMap<TaskId, readonly TaskId[]>): Set<TaskId> {
  const seen = new Set<TaskId>();
  const stack = [...from];
  while (stack.length > 0) {
    const id = stack.pop() as TaskId;
    for (const next of edges.get(id) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return seen;
}

/**
 * Every task that waits, directly or transitively, on one of `ids`: what a blocked task
 * delays. Nothing else is delayed.
 */
export function dependentClosure(graph: TaskGraph, ids: Iterable<TaskId>): Set<TaskId> {
  return walk(ids, graph.dependents);
}

/** Every active task that `ids` need first, directly or transitively. */
export function dependencyClosure(graph: TaskGraph, ids: Iterable<TaskId>): Set<TaskId> {
  return walk(ids, graph.dependencies);
}

/**
 * Active tasks in dependency order (dependencies first; ties by id). Tasks in a cycle
 * come last, in id order.
 */
export function topologicalOrder(graph: TaskGraph): TaskId[] {
  const indegree = new Map<TaskId, number>();
  for (const id of graph.ids) indegree.set(id, (graph.dependencies.get(id) ?? []).length);
  const ready = graph.ids.filter((id) => indegree.get(id) === 0);
  const order: TaskId[] = [];
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i] as TaskId;
    order.push(id);
    for (const next of graph.dependents.get(id) ?? []) {
      const left = (indegree.get(next) ?? 0) - 1;
      indegree.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  const placed = new Set(order);
  return [...order, ...graph.ids.filter((id) => !placed.has(id))];
}
