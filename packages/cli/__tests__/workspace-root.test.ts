import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace, plan, writeCatalog } from './dry-run-helpers.js';

// Each test spawns the built CLI; allow for a loaded machine.
describe('the workspace root is found like git finds its root', { timeout: 60_000 }, () => {
  it('run --dry-run and status from a subfolder use the root and create nothing there', async () => {
    const { root, ws, write } = makeWorkspace();
    mkdirSync(join(ws, '.git'));
    write('src/a.ts', '');
    write('agent-task/g/t/PLAN.md', plan('cloud-G01', ['src/a.ts']));
    const { path: catalog } = writeCatalog(root);
    const sub = join(ws, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const dry = await runCli(['run', '--dry-run', '--json', '--execution-catalog', catalog], {
      cwd: sub,
    });
    expect(dry.exitCode).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ workspace: ws, summary: { tasks: 1 } });
    const status = await runCli(['status', '--json'], { cwd: sub });
    expect(status.exitCode).toBe(0);
    expect(readdirSync(sub)).toEqual([]);
    expect(existsSync(join(ws, 'src', 'agent-task'))).toBe(false);
  });

  it('a folder without agent-task/ is exit 2 "no tasks here", naming where it looked; nothing created', async () => {
    const { ws } = makeWorkspace();
    mkdirSync(join(ws, '.git'));
    const sub = join(ws, 'src');
    mkdirSync(sub);
    for (const args of [['run'], ['run', '--dry-run'], ['status']]) {
      const result = await runCli(args, { cwd: sub });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('SY_WORKSPACE_NOT_FOUND');
      expect(result.stderr).toContain(`no tasks here: no agent-task/ folder in ${sub}`);
      expect(result.stderr).toContain(`the git root ${ws}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const explicit = await runCli(['run', '--workspace', sub]);
    expect(explicit.exitCode).toBe(2);
    expect(explicit.stderr).toContain('no tasks here');
    expect(readdirSync(sub)).toEqual([]);
    expect(readdirSync(ws).sort()).toEqual(['.git', 'src']);
  });

  it('a JS config above the workspace root is never executed (dry run, catalog validate)', async () => {
    const { root, ws, write } = makeWorkspace();
    const ran = join(root, 'config-ran');
    writeFileSync(
      join(root, 'switchyard.config.mjs'),
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(ran)}, 'x'); export default {};\n`,
    );
    mkdirSync(join(ws, '.git'));
    write('src/a.ts', '');
    write('agent-task/g/t/PLAN.md', plan('cloud-G01', ['src/a.ts']));
    const { path: catalog } = writeCatalog(root);
    await runCli(['run', '--dry-run', '--execution-catalog', catalog], { cwd: ws });
    await runCli(['catalog', 'validate', '--skip-command-check'], { cwd: join(ws, 'src') });
    expect(existsSync(ran)).toBe(false);
  });

  it('an unknown --task-group has its own code', async () => {
    const { root, ws, write } = makeWorkspace();
    write('src/a.ts', '');
    write('agent-task/g/t/PLAN.md', plan('cloud-G01', ['src/a.ts']));
    const { path: catalog } = writeCatalog(root);
    const dry = await runCli(
      ['run', '--dry-run', '--task-group', 'nope', '--execution-catalog', catalog],
      { cwd: ws },
    );
    expect(dry.exitCode).toBe(2);
    expect(dry.stdout).toContain('SY_UNKNOWN_GROUP');
    const live = await runCli(['run', '--task-group', 'nope', '--execution-catalog', catalog], {
      cwd: ws,
    });
    expect(live.exitCode).toBe(2);
    expect(live.stderr).toContain('SY_UNKNOWN_GROUP');
    expect(live.stderr).toContain('Known groups: g.');
  });
});
