// Workspaces for the dispatch benchmark: `count` independent tasks (each writes its own
// src/<name>.txt), and a catalog whose single target runs `argv` (a POSIX sh agent) on every
// route of both stages, text output. Plain Node, no dependencies.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUTES = ['local', 'cloud'].flatMap((k) =>
  Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
);

/** Task ids `bench/t0001`…, in order. */
export function taskIds(count) {
  return Array.from({ length: count }, (_, i) => `bench/t${String(i + 1).padStart(4, '0')}`);
}

/** Creates the workspace; returns { dir, catalog, ids }. */
export function createDispatchWorkspace(prefix, count, argv, config = {}) {
  return writeDispatchWorkspace(
    realpathSync(mkdtempSync(join(tmpdir(), prefix))),
    count,
    argv,
    config,
  );
}

/** Writes the tasks, catalog and config into `dir` (e.g. a git clone); returns { dir, catalog, ids }. */
export function writeDispatchWorkspace(dir, count, argv, config = {}) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  const ids = taskIds(count);
  for (const id of ids) {
    const task = join(dir, 'agent-task', id);
    mkdirSync(task, { recursive: true });
    const name = id.split('/')[1];
    writeFileSync(
      join(task, 'PLAN.md'),
      `---\nroute: local-G01\n---\n# ${id}\n\n## Modified Files Summary\n\n- src/${name}.txt\n\n## Implementation Checklist\n\n- [ ] create src/${name}.txt\n`,
    );
  }
  const catalog = join(dir, 'bench-catalog.json');
  const routes = Object.fromEntries(ROUTES.map((r) => [r, { candidates: ['sh-agent'] }]));
  writeFileSync(
    catalog,
    JSON.stringify({
      schema_version: 1,
      targets: {
        'sh-agent': {
          agent: 'bench-sh-agent',
          model: 'none',
          execution_class: 'local_model',
          runtime: { command: argv, output_format: 'text' },
        },
      },
      routes: { worker: routes, review: routes },
    }),
  );
  writeFileSync(
    join(dir, 'switchyard.config.json'),
    JSON.stringify({ retry: { baseDelayMs: 10, maxDelayMs: 100 }, ...config }),
  );
  return { dir, catalog, ids };
}
