// The test runner's summary line is what CI reads: these scratch vitest projects, run through
// test/run-tests.mjs as a real process, prove that every way vitest can fail (failed test,
// throwing hooks, an error outside any test, a crashed worker) gives `failed >= 1` and exit 1,
// and that a clean run is counted exactly, skipped and todo tests included.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const runner = join(here, 'run-tests.mjs');
const vitestPackage = join(here, 'node_modules', 'vitest');

const PROJECTS: Record<string, string> = {
  'failing-test': `
    import { expect, it } from 'vitest';
    it('passes', () => {});
    it('fails', () => { expect(1).toBe(2); });`,
  'throwing-before-all': `
    import { beforeAll, describe, it } from 'vitest';
    it('passes', () => {});
    describe('suite', () => {
      beforeAll(() => { throw new Error('setup failed'); });
      it('never runs 1', () => {});
      it('never runs 2', () => {});
    });`,
  'throwing-after-all': `
    import { afterAll, it } from 'vitest';
    afterAll(() => { throw new Error('teardown failed'); });
    it('passes 1', () => {});
    it('passes 2', () => {});`,
  'uncaught-timer-error': `
    import { it } from 'vitest';
    it('passes, but leaves a throwing timer', async () => {
      setTimeout(() => { throw new Error('late failure'); }, 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    });`,
  'worker-exit-in-test': `
    import { it } from 'vitest';
    it('passes', () => {});
    it('exits the worker', () => { process.exit(3); });`,
  'worker-killed': `
    import { it } from 'vitest';
    it('passes', () => {});
    it('kills its worker', () => { process.kill(process.pid, 'SIGKILL'); });`,
  'file-exits-on-import': `process.exit(0);`,
  'file-fails-to-import': `
    import { it } from 'vitest';
    throw new Error('broken module');
    it('never collected', () => {});`,
  'hooks-beside-skips': `
    import { afterAll, beforeAll, describe, it } from 'vitest';
    describe('teardown fails', () => {
      afterAll(() => { throw new Error('teardown failed'); });
      it('passes', () => {});
      it.skip('skipped on purpose', () => {});
    });
    describe('setup fails', () => {
      beforeAll(() => { throw new Error('setup failed'); });
      it('never runs', () => {});
      it.todo('todo');
    });`,
  clean: `
    import { it } from 'vitest';
    it('one', () => {});
    it('two', () => {});
    it('three', () => {});
    it.skip('skipped', () => {});
    it.todo('todo');`,
};

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sy-runner-'));
  for (const [name, source] of Object.entries(PROJECTS)) {
    const dir = join(root, name);
    await mkdir(join(dir, 'node_modules'), { recursive: true });
    await symlink(vitestPackage, join(dir, 'node_modules', 'vitest'), 'dir');
    await writeFile(join(dir, 'vitest.config.mjs'), 'export default {};\n');
    await writeFile(join(dir, 'scratch.test.mjs'), `${source.trim()}\n`);
  }
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

interface RunnerResult {
  code: number;
  lastLine: string;
  counts: { passed: number; failed: number; skipped: number };
  output: string;
}

/** Runs the runner in `project`'s folder the way CI runs it in the repository. */
function runRunner(project: string, cwdOrRoot: 'cwd' | 'root' = 'cwd'): Promise<RunnerResult> {
  const dir = join(root, project);
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key];
  const args = cwdOrRoot === 'root' ? [runner, '--root', dir] : [runner];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: cwdOrRoot === 'root' ? here : dir, env, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        const lines = stdout.trimEnd().split('\n');
        const lastLine = lines[lines.length - 1] ?? '';
        const match = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(lastLine);
        const counts = match
          ? { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]) }
          : { passed: -1, failed: -1, skipped: -1 };
        resolve({ code, lastLine, counts, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

// Each case starts a whole vitest run; a loaded machine makes that slow, never wrong.
describe('test/run-tests.mjs summary line', { timeout: 120_000 }, () => {
  const failures = Object.keys(PROJECTS).filter((name) => name !== 'clean');
  it.each(failures)('%s: failed >= 1 and exit 1', async (project) => {
    const result = await runRunner(project);
    expect(result.lastLine, result.output).toMatch(/^\d+ passed, \d+ failed, \d+ skipped$/);
    expect(result.counts.failed, result.output).toBeGreaterThanOrEqual(1);
    expect(result.code, result.output).toBe(1);
  });

  it('counts tests skipped because their beforeAll failed as failed', async () => {
    const result = await runRunner('throwing-before-all');
    expect(result.counts, result.output).toEqual({ passed: 1, failed: 2, skipped: 0 });
  });

  it('counts a throwing afterAll once, next to the tests that passed', async () => {
    const result = await runRunner('throwing-after-all');
    expect(result.counts, result.output).toEqual({ passed: 2, failed: 1, skipped: 0 });
  });

  it('keeps .skip and .todo tests skipped next to failing hooks', async () => {
    const result = await runRunner('hooks-beside-skips');
    expect(result.counts, result.output).toEqual({ passed: 1, failed: 2, skipped: 2 });
  });

  it('counts a clean run exactly, skipped and todo tests included, and exits 0', async () => {
    const result = await runRunner('clean');
    expect(result.lastLine, result.output).toBe('3 passed, 0 failed, 2 skipped');
    expect(result.code).toBe(0);
  });

  it('runs the project named by --root from another folder', async () => {
    const clean = await runRunner('clean', 'root');
    expect(clean.lastLine, clean.output).toBe('3 passed, 0 failed, 2 skipped');
    const failing = await runRunner('failing-test', 'root');
    expect(failing.counts, failing.output).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(failing.code).toBe(1);
  });
});
