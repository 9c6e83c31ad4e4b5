import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace, plan, SYSTEM_PATH, writeCatalog } from './dry-run-helpers.js';

// 600 tasks: above the threshold (500 plans) from which plans are parsed in worker threads.
const w = makeWorkspace();
const catalog = writeCatalog(w.root);
afterAll(() => rmSync(w.root, { recursive: true, force: true }));
for (let i = 0; i < 600; i++) {
  const group = `g${Math.floor(i / 100)}`;
  const deps = i % 100 > 0 && i % 3 === 0 ? [`t${i - 1}`] : [];
  w.write(
    `agent-task/${group}/t${i}/PLAN.md`,
    plan(`local-G0${1 + (i % 9)}`, [`src/f${i % 250}.ts`, `src/m${i % 7}/x.ts`], { deps }),
  );
}
// Problems of every kind must come out the same, with their files and lines.
w.write('agent-task/g0/t1/PLAN.md', '---\nroute: "cloud-G01"\nroute: x\n---\nbody\n');
w.write(
  'agent-task/g0/t2/PLAN.md',
  '---\nroute: local-G01\ndepends_on: [nope]\n---\n## Files to Modify\n\n- /abs.ts\n- ../up.ts\n- src/*.ts\n',
);
w.write('agent-task/g1/t105/PLAN-2.md', '---\nroute: cloud-G05\n---\n## Modified Files Summary\n');
w.write('agent-task/g2/t201/PLAN.md', '---\nroute: local-G01\n');
w.write('agent-task/g3/empty/.keep', '');
writeFileSync(join(w.ws, 'src-is-a-file'), '');

const dryRun = async (workers: string, env: Record<string, string> = {}) => {
  const r = await runCli(
    ['run', '--dry-run', '--json', '--workspace', w.ws, '--execution-catalog', catalog.path],
    { env: { ...SYSTEM_PATH, SWITCHYARD_PARSE_WORKERS: workers, ...env } },
  );
  const doc = JSON.parse(r.stdout);
  doc.generated_at = '';
  return { exitCode: r.exitCode, doc, stderr: r.stderr };
};
const cacheFile = join(w.ws, 'agent-task', '.switchyard', 'cache', 'plans.json');
const dropCache = () => {
  rmSync(cacheFile, { force: true });
  rmSync(join(dirname(cacheFile), 'plan-keys.json'), { force: true });
};

describe('switchyard run --dry-run over a large workspace', { timeout: 120_000 }, () => {
  it('reports the same with plans parsed in threads, on one thread, and from the cache', async () => {
    dropCache();
    const single = await dryRun('0');
    expect(single.exitCode).toBe(2);
    expect(single.doc.tasks).toHaveLength(601);
    expect(single.doc.summary.errors).toBeGreaterThanOrEqual(6);
    expect(single.doc.problems).toContainEqual(
      expect.objectContaining({ file: 'agent-task/g0/t2/PLAN.md', line: 7 }),
    );

    dropCache();
    // V8 writes one CPU profile per thread: the main thread and the two parse workers.
    const profiles = mkdtempSync(join(tmpdir(), 'sy-prof-'));
    try {
      const threaded = await dryRun('2', { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles}` });
      expect(threaded).toEqual(single);
      expect(readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'))).toHaveLength(3);
    } finally {
      rmSync(profiles, { recursive: true, force: true });
    }
    expect(existsSync(cacheFile)).toBe(true);

    const cached = await dryRun('2');
    expect(cached).toEqual(single);
  });

  it('re-parses a plan changed after it was cached', async () => {
    await dryRun('2'); // fills the cache
    w.write('agent-task/g4/t450/PLAN.md', '---\nroute: nowhere\n---\n');
    const threaded = await dryRun('2');
    expect(threaded.doc.problems).toContainEqual(
      expect.objectContaining({ file: 'agent-task/g4/t450/PLAN.md', line: 2 }),
    );
    dropCache();
    expect(threaded).toEqual(await dryRun('0'));
  });

  it('never serves a stale plan when plan-keys.json and plans.json come from different runs', async () => {
    await dryRun('2');
    const stale = `${cacheFile}.stale`;
    copyFileSync(cacheFile, stale);
    w.write('agent-task/g5/t520/PLAN.md', '---\nroute: local-G02\n---\n## Checklist\n');
    await dryRun('2'); // plans.json and plan-keys.json now know the new plan
    copyFileSync(stale, cacheFile); // as if a crash kept the old plans.json
    rmSync(stale);
    const threaded = await dryRun('2');
    expect(threaded.doc.problems).toContainEqual(
      expect.objectContaining({ file: 'agent-task/g5/t520/PLAN.md', severity: 'warning' }),
    );
    dropCache();
    expect(threaded).toEqual(await dryRun('0'));
  });
});
