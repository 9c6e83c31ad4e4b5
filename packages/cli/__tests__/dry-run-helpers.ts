import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temporary workspace; `write` creates files (and folders) inside it. */
export function makeWorkspace() {
  const root = mkdtempSync(join(tmpdir(), 'sy-dry-'));
  const ws = join(root, 'ws');
  mkdirSync(ws);
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  return { root, ws, write };
}

/** A PLAN.md source. */
export function plan(
  route: string,
  files: string[],
  opts: { deps?: string[]; target?: string } = {},
): string {
  const fm = [`route: ${route}`];
  if (opts.deps?.length) fm.push(`depends_on: [${opts.deps.join(', ')}]`);
  if (opts.target) fm.push(`target: ${opts.target}`);
  return `---\n${fm.join('\n')}\n---\n# Task\n\n## Modified Files Summary\n\n${files.map((f) => `- ${f}`).join('\n')}\n\n## Implementation Checklist\n\n- [ ] do it\n`;
}

/**
 * Writes a valid catalog with two targets whose command is an executable script that would
 * leave `launched` next to it if anything ran it. Worker routes: t-main then t-fast; review: t-fast.
 */
export function writeCatalog(root: string): { path: string; marker: string } {
  const agent = join(root, 'fake-agent');
  const marker = join(root, 'launched');
  writeFileSync(agent, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(agent, 0o755);
  const routes: Record<string, Record<string, { candidates: string[] }>> = {
    worker: {},
    review: {},
  };
  for (const stage of ['worker', 'review'] as const)
    for (const kind of ['local', 'cloud'])
      for (let i = 1; i <= 10; i++)
        (routes[stage] as Record<string, { candidates: string[] }>)[
          `${kind}-G${String(i).padStart(2, '0')}`
        ] = {
          candidates: stage === 'worker' ? ['t-main', 't-fast'] : ['t-fast'],
        };
  const target = (model: string) => ({
    agent: 'fake',
    model,
    execution_class: 'cloud_model',
    runtime: { command: [agent, '{prompt}'], preflight_command: [agent] },
  });
  const path = join(root, 'catalog.json');
  writeFileSync(
    path,
    JSON.stringify({
      schema_version: 1,
      targets: { 't-main': target('main'), 't-fast': target('fast') },
      routes,
    }),
  );
  return { path, marker };
}

/** PATH for the child: system tools only. */
export const SYSTEM_PATH = { PATH: '/usr/local/bin:/usr/bin:/bin' };
