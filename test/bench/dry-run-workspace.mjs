// Generates a synthetic switchyard workspace for benchmarks: `tasks` tasks in groups of 100,
// random acyclic dependencies (each task may depend on up to 3 earlier tasks, same or other
// group), write sets of 1-4 files drawn from a pool small enough that many collide, 5% of
// the tasks archived complete, and a valid catalog whose commands exist on this machine.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 8) % n; // the low bits of an LCG are not random
  };
}

export function generateWorkspace(root, tasks, seed = 42) {
  const rand = rng(seed);
  const ws = join(root, 'ws');
  const ids = [];
  const pool = Math.max(50, Math.floor(tasks * 0.8));
  let archived = 0;
  for (let i = 0; i < tasks; i++) {
    const group = `g${String(Math.floor(i / 100)).padStart(3, '0')}`;
    const name = `task-${String(i).padStart(5, '0')}`;
    const id = `${group}/${name}`;
    if (rand(20) === 0) {
      mkdirSync(join(ws, 'agent-task', 'archive', group, name), { recursive: true });
      writeFileSync(join(ws, 'agent-task', 'archive', group, name, 'complete.log'), 'ok\n');
      ids.push(id);
      archived++;
      continue;
    }
    const deps = new Set();
    for (let d = rand(4); d > 0 && ids.length > 0; d--)
      deps.add(ids[ids.length - 1 - rand(Math.min(ids.length, 300))]);
    const files = new Set();
    for (let f = 1 + rand(4); f > 0; f--) {
      const k = rand(pool);
      files.add(`src/m${k % 50}/file-${k}.ts`);
    }
    const depList = [...deps].map((d) =>
      d.startsWith(`${group}/`) ? d.slice(group.length + 1) : d,
    );
    const plan = `---
route: ${rand(2) ? 'cloud' : 'local'}-G${String(1 + rand(10)).padStart(2, '0')}
${depList.length ? `depends_on: [${depList.join(', ')}]\n` : ''}---
# ${name}

Implements part ${i} of the backlog.

## Modified Files Summary

${[...files].map((f, k) => (k % 2 ? `- \`${f}\` — change ${k}` : `- ${f}`)).join('\n')}

## Implementation Checklist

- [ ] change the code
- [ ] add tests

## Definition of Done

Command: \`npm test\`
Assertion: exit code 0
`;
    mkdirSync(join(ws, 'agent-task', group, name), { recursive: true });
    writeFileSync(join(ws, 'agent-task', group, name, 'PLAN.md'), plan);
    ids.push(id);
  }
  mkdirSync(join(ws, 'src'), { recursive: true });
  const routes = { worker: {}, review: {} };
  for (const stage of ['worker', 'review'])
    for (const kind of ['local', 'cloud'])
      for (let g = 1; g <= 10; g++)
        routes[stage][`${kind}-G${String(g).padStart(2, '0')}`] = { candidates: ['t-a', 't-b'] };
  const target = (model) => ({
    agent: 'bench',
    model,
    execution_class: 'cloud_model',
    runtime: { command: ['true', '{prompt}'] },
  });
  const catalog = join(root, 'catalog.json');
  writeFileSync(
    catalog,
    JSON.stringify({
      schema_version: 1,
      targets: { 't-a': target('a'), 't-b': target('b') },
      routes,
    }),
  );
  return { ws, catalog, archived };
}
