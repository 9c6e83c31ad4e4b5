import { describe, expect, it } from 'vitest';
import { dependencyClosure, dependentClosure, topologicalOrder } from './closure.js';
import { buildTaskGraph, type GraphNodeInput } from './task-graph.js';

const node = (id: string, ...deps: string[]): GraphNodeInput => ({
  id,
  file: `agent-task/${id}/PLAN.md`,
  dependsOn: deps.map((d, i) => ({ raw: d, id: d, line: 3 + i })),
});

describe('buildTaskGraph', () => {
  it('links dependencies across groups and treats archived tasks as existing', () => {
    const graph = buildTaskGraph(
      [node('api/b', 'api/a', 'db/schema'), node('api/a', 'old/done'), node('db/schema')],
      new Set(['old/done']),
    );
    expect(graph.problems).toEqual([]);
    expect(graph.dependencies.get('api/b')).toEqual(['api/a', 'db/schema']);
    expect(graph.dependencies.get('api/a')).toEqual([]); // archived dependency is satisfied, not an edge
    expect(graph.dependents.get('db/schema')).toEqual(['api/b']);
    expect(topologicalOrder(graph)).toEqual(['api/a', 'db/schema', 'api/b']);
  });

  it('reports an unknown dependency naming both tasks, with file and line', () => {
    const graph = buildTaskGraph([node('g/a', 'g/missing'), node('g/b', 'other/x')], new Set());
    expect(graph.problems.map((p) => [p.code, p.message, p.file, p.line])).toEqual([
      [
        'SY_GRAPH_INVALID',
        'task g/a depends on unknown task g/missing',
        'agent-task/g/a/PLAN.md',
        3,
      ],
      ['SY_GRAPH_INVALID', 'task g/b depends on unknown task other/x', 'agent-task/g/b/PLAN.md', 3],
    ]);
    expect([...graph.unknownDeps.keys()]).toEqual(['g/a', 'g/b']);
  });

  it('reports each cycle once as a path, with every member named', () => {
    const graph = buildTaskGraph(
      [
        node('g/a', 'g/b'),
        node('g/b', 'h/c'),
        node('h/c', 'g/a'),
        node('g/self', 'g/self'),
        node('g/free', 'g/a'),
      ],
      new Set(),
    );
    expect(graph.problems.map((p) => p.message)).toEqual([
      'dependency cycle: g/a -> g/b -> h/c -> g/a',
      'dependency cycle: g/self -> g/self',
    ]);
    expect([...graph.inCycle].sort()).toEqual(['g/a', 'g/b', 'g/self', 'h/c']);
    expect(graph.problemsByTask.get('h/c')?.[0]?.message).toMatch(/cycle/);
    expect(graph.problemsByTask.has('g/free')).toBe(false);
  });

  it('handles a 5,000-long chain without recursion limits', () => {
    const nodes = Array.from({ length: 5_000 }, (_, i) =>
      node(`g/t${i}`, ...(i > 0 ? [`g/t${i - 1}`] : [])),
    );
    nodes.push(node('g/t0-back', 'g/t4999'));
    (nodes[0] as unknown as { dependsOn: unknown[] }).dependsOn = [
      { raw: 'g/t0-back', id: 'g/t0-back' },
    ];
    const graph = buildTaskGraph(nodes, new Set());
    expect(graph.problems).toHaveLength(1);
    expect(graph.inCycle.size).toBe(5_001);
  });
});

describe('closures', () => {
  const graph = buildTaskGraph(
    [
      node('g/base'),
      node('g/mid', 'g/base'),
      node('g/top', 'g/mid'),
      node('g/side', 'g/base'),
      node('g/free'),
    ],
    new Set(),
  );
  it('a blocked task delays only its dependent closure', () => {
    expect([...dependentClosure(graph, ['g/mid'])]).toEqual(['g/top']);
    expect([...dependentClosure(graph, ['g/base'])].sort()).toEqual(['g/mid', 'g/side', 'g/top']);
  });
  it('dependency closure walks the other way', () => {
    expect([...dependencyClosure(graph, ['g/top'])].sort()).toEqual(['g/base', 'g/mid']);
  });
});
