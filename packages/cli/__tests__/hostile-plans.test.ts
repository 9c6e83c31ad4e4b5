import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace, plan, SYSTEM_PATH, writeCatalog } from './dry-run-helpers.js';

const roots: string[] = [];
const workspace = () => {
  const w = makeWorkspace();
  roots.push(w.root);
  return w;
};
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A workspace whose only task's PLAN.md is made by `make` (given its absolute path). */
function hostilePlan(make: (planPath: string) => void) {
  const w = workspace();
  w.write('agent-task/g/t/keep.txt', '');
  make(join(w.ws, 'agent-task/g/t/PLAN.md'));
  return w;
}

const setups: Record<string, (planPath: string) => void> = {
  'a FIFO': (p) => execFileSync('mkfifo', [p]),
  'a symlink to /dev/zero': (p) => symlinkSync('/dev/zero', p),
  'a symlink to /dev/urandom': (p) => symlinkSync('/dev/urandom', p),
  'a sparse 20 MB file': (p) => {
    const fd = openSync(p, 'w');
    ftruncateSync(fd, 20 * 1024 * 1024);
    closeSync(fd);
  },
};

describe('hostile PLAN.md files are refused with exit 2', { timeout: 60_000 }, () => {
  for (const [name, make] of Object.entries(setups)) {
    it(`validate-plan: ${name}`, async () => {
      const { ws } = hostilePlan(make);
      const r = await runCli(['validate-plan', 'agent-task/g/t/PLAN.md', '--json'], {
        cwd: ws,
        env: SYSTEM_PATH,
      });
      expect(r.exitCode).toBe(2);
      const doc = JSON.parse(r.stdout) as { problems: { code: string; message: string }[] };
      expect(doc.problems[0]).toMatchObject({
        code: 'SY_PLAN_INVALID',
        message: expect.stringMatching(
          /cannot read plan: it (is a FIFO|is a symlink|is over the size cap)/,
        ),
      });
    });

    it(`run --dry-run: ${name}`, async () => {
      const { root, ws } = hostilePlan(make);
      const catalog = writeCatalog(root);
      const r = await runCli(['run', '--dry-run', '--execution-catalog', catalog.path], {
        cwd: ws,
        env: SYSTEM_PATH,
      });
      expect(r.exitCode).toBe(2);
      expect(r.stdout + r.stderr).toMatch(/cannot read plan/);
    });
  }

  it('validate-plan refuses a task depending on itself', async () => {
    const { ws, write } = workspace();
    write('agent-task/g/t/PLAN.md', plan('local-G01', ['src/a.ts'], { deps: ['t'] }));
    const r = await runCli(['validate-plan', 'agent-task/g/t/PLAN.md'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/SY_GRAPH_INVALID .*depends_on "t": the task depends on itself/);
  });

  it('validate-plan: a write-set path of 8,000 folders is exit 2, not a stack overflow', async () => {
    const { ws, write } = workspace();
    write('agent-task/g/t/PLAN.md', plan('local-G01', [`${'d/'.repeat(8000)}f.ts`]));
    const r = await runCli(['validate-plan', 'agent-task/g/t/PLAN.md'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/too long/);
    expect(r.stderr).not.toMatch(/Maximum call stack/);
  });

  it('honours SWITCHYARD_MAX_PLAN_BYTES', async () => {
    const { ws, write } = workspace();
    write('agent-task/g/t/PLAN.md', plan('local-G01', ['src/a.ts']));
    const r = await runCli(['validate-plan', 'agent-task/g/t/PLAN.md'], {
      cwd: ws,
      env: { ...SYSTEM_PATH, SWITCHYARD_MAX_PLAN_BYTES: '16' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/size cap of 16 bytes/);
  });
});
