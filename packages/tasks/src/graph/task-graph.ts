import type { DependencyRef, Problem, TaskId } from '@switchyard/core';

/** A task as the graph sees it: its id, its PLAN file and its resolved dependencies. */
export interface GraphNodeInput {
  id: TaskId;
  file?: string;
  dependsOn: readonly DependencyRef[];
}

/** The dependency graph over every active task of every group. */
export interface TaskGraph {
  /** Active task ids, sorted. */
  ids: TaskId[];
  /** id -> dependencies that are active tasks (archived ones are satisfied and left out). */
  dependencies: Map<TaskId, TaskId[]>;
  /** id -> active tasks that depend on it directly. */
  dependents: Map<TaskId, TaskId[]>;
  /** Tasks in some dependency cycle. */
  inCycle: Set<TaskId>;
  /** Tasks with a dependency that exists nowhere. */
  unknownDeps: Map<TaskId, TaskId[]>;
  problems: Problem[];
  /** The same problems, by the task they are about (a cycle's problem under each member). */
  problemsByTask: Map<TaskId, Problem[]>;
}

/**
 * Builds the graph. A dependency may be an active task or an archived one (archived =
 * satisfied when complete). Unknown dependencies and cycles are SY_GRAPH_INVALID problems
 * that name the tasks.
 */
export function buildTaskGraph(
  nodes: readonly GraphNodeInput[],
  archived: ReadonlySet<TaskId>,
): TaskGraph {
  const ids = nodes.map((n) => n.id).sort();
  const known = new Set(ids);
  const graph: TaskGraph = {
    ids,
    dependencies: new Map(),
    dependents: new Map(ids.map((id) => [id, []])),
    inCycle: new Set(),
    unknownDeps: new Map(),
    problems: [],
    problemsByTask: new Map(),
  };
  const report = (problem: Problem, about: readonly TaskId[]) => {
    graph.problems.push(problem);
    for (const id of about)
      graph.problemsByTask.set(id, [...(graph.problemsByTask.get(id) ?? []), problem]);
  };
  for (const node of nodes) {
    const deps: TaskId[] = [];
    for (const dep of node.dependsOn) {
      if (known.has(dep.id)) {
        if (!deps.includes(dep.id)) {
          deps.push(dep.id);
          graph.dependents.get(dep.id)?.push(node.id);
        }
      } else if (!archived.has(dep.id)) {
        graph.unknownDeps.set(node.id, [...(graph.unknownDeps.get(node.id) ?? []), dep.id]);
        report(
          {
            code: 'SY_GRAPH_INVALID',
            message: `task ${node.id} depends on unknown task ${dep.id}`,
            file: node.file,
            line: dep.line,
            hint: `create agent-task/${dep.id}/PLAN.md or fix the name ("task" = same group, "group/task" = another group)`,
            severity: 'error',
          },
          [node.id],
        );
      }
    }
    graph.dependencies.set(node.id, deps);
  }
  const cycles = findCycles(ids, graph.dependencies);
  const byId = cycles.length > 0 ? new Map(nodes.map((n) => [n.id, n])) : undefined;
  for (const cycle of cycles) {
    for (const id of cycle) graph.inCycle.add(id);
    const first = byId?.get(cycle[0] as TaskId);
    report(
      {
        code: 'SY_GRAPH_INVALID',
        message: `dependency cycle: ${[...cycle, cycle[0]].join(' -> ')}`,
        file: first?.file,
        line: first?.dependsOn.find((d) => d.id === cycle[1 % cycle.length])?.line,
        hint: 'remove one depends_on entry of the cycle',
        severity: 'error',
      },
      cycle,
    );
  }
  return graph;
}

/**
 * Every dependency cycle (strongly connected component with a loop), each as an ordered
 * path starting at its smallest id. Iterative Tarjan over integer indices: linear, and no
 * recursion limit on deep chains.
 */
export function findCycles(
  ids: readonly TaskId[],
  deps: ReadonlyMap<TaskId, readonly TaskId[]>,
): TaskId[][] {
  const n = ids.length;
  const at = new Map<TaskId, number>();
  for (let i = 0; i < n; i++) at.set(ids[i] as TaskId, i);
  const edges: Int32Array[] = ids.map(
    (id) => new Int32Array((deps.get(id) ?? []).map((d) => at.get(d) ?? -1).filter((j) => j >= 0)),
  );
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const next = new Int32Array(n);
  const stack: number[] = [];
  const work: number[] = [];
  const cycles: TaskId[][] = [];
  let counter = 0;
  const visit = (v: number) => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    work.push(v);
  };
  for (let s = 0; s < n; s++) {
    if ((index[s] as number) >= 0) continue;
    visit(s);
    while (work.length > 0) {
      const v = work[work.length - 1] as number;
      const out = edges[v] as Int32Array;
      const k = next[v] as number;
      if (k < out.length) {
        next[v] = k + 1;
        const w = out[k] as number;
        if ((index[w] as number) < 0) visit(w);
        else if (onStack[w]) low[v] = Math.min(low[v] as number, index[w] as number);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low[parent] = Math.min(low[parent] as number, low[v] as number);
      if (low[v] !== index[v]) continue;
      const component: TaskId[] = [];
      let member: number;
      do {
        member = stack.pop() as number;
        onStack[member] = 0;
        component.push(ids[member] as TaskId);
      } while (member !== v);
      if (component.length > 1 || out.includes(v)) cycles.push(cyclePath(component, deps));
    }
  }
  return cycles.sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
}

/** An actual path through a component: from its smallest id, following edges back to it. */
function cyclePath(component: TaskId[], deps: ReadonlyMap<TaskId, readonly TaskId[]>): TaskId[] {
  const members = new Set(component);
  const start = [...component].sort()[0] as TaskId;
  // BFS from start's dependencies back to start, inside the component.
  const prev = new Map<TaskId, TaskId>();
  const queue: TaskId[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const at = queue[head] as TaskId;
    for (const to of deps.get(at) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path: TaskId[] = [];
        for (let n: TaskId | undefined = at; n !== undefined && n !== start; n = prev.get(n))
          path.push(n);
        return [start, ...path.reverse()];
      }
      if (!prev.has(to)) {
        prev.set(to, at);
        queue.push(to);
      }
    }
  }
  return [start];
}
