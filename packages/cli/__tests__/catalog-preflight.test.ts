import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CatalogTarget } from '@switchyard/catalog';
import { describe, expect, it, vi } from 'vitest';
import { assertPreflights, runPreflight } from '../src/preflight/target-commands.js';

// Each test spawns real processes (the built CLI, Node); allow for a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const target = (preflight?: string[], environment?: Record<string, string>): CatalogTarget => ({
  agent: 'fake-agent',
  model: 'm1',
  execution_class: 'cloud_model',
  selfcheck_required: false,
  runtime: {
    command: [process.execPath],
    output_format: 'text',
    ...(preflight ? { preflight_command: preflight } : {}),
    ...(environment ? { environment } : {}),
  },
});
const node = (code: string) => [process.execPath, '-e', code];

describe('runPreflight', () => {
  it('passes a target without a preflight without running anything', async () => {
    const r = await runPreflight('t', target(), { cwd: tmpdir() });
    expect(r).toMatchObject({ ok: true, command: [] });
  });

  it('runs argv without a shell, fills placeholders and target environment, stdin ignored', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'sy-pre-'));
    const script = `
      const fs = require('node:fs');
      let stdin = 'open';
      try { stdin = fs.fstatSync(0).isFIFO() ? 'pipe' : 'other'; } catch { stdin = 'closed'; }
      fs.writeFileSync('seen.json', JSON.stringify({ argv: process.argv.slice(1), cwd: process.cwd(), url: process.env.BASE_URL, stdin }));
    `;
    const r = await runPreflight(
      'my-target',
      target([...node(script), '{target_id}', '{model}', '$HOME; echo hi', '{workspace}'], {
        BASE_URL: '${SY_TEST_BASE:-http://127.0.0.1:9/v1}',
      }),
      { cwd, env: { PATH: '/nonexistent' } },
    );
    expect(r.ok).toBe(true);
    const seen = JSON.parse(await readFile(join(cwd, 'seen.json'), 'utf8'));
    expect(seen.argv).toEqual(['my-target', 'm1', '$HOME; echo hi', cwd]);
    expect(seen.url).toBe('http://127.0.0.1:9/v1');
    expect(seen.stdin).not.toBe('pipe');
  });

  it('keeps the output of a failing preflight', async () => {
    const r = await runPreflight(
      't',
      target(
        node(
          'console.log("checking login"); console.error("error: not logged in"); process.exit(3)',
        ),
      ),
      { cwd: tmpdir() },
    );
    expect(r).toMatchObject({ ok: false, exitCode: 3, timedOut: false });
    expect(r.output).toContain('checking login');
    expect(r.output).toContain('error: not logged in');
  });

  it('times out a hanging preflight', async () => {
    const r = await runPreflight('t', target(node('setInterval(() => {}, 1000)')), {
      cwd: tmpdir(),
      timeoutMs: 300,
    });
    expect(r.ok).toBe(false);
    expect(r.timedOut).toBe(true);
  });

  it('reports a command that cannot start', async () => {
    const r = await runPreflight('t', target(['/nonexistent/agent', '--version']), {
      cwd: tmpdir(),
    });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/ENOENT|not found|no such file/i);
  });
});

describe('assertPreflights', () => {
  it('throws SY_PREFLIGHT_FAILED naming every failing target with its output', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sy-pre-'));
    await writeFile(join(dir, 'x'), '');
    const error = await assertPreflights(
      [
        ['good', target(node('process.exit(0)'))],
        ['bad-one', target(node('console.error("quota check failed"); process.exit(1)'))],
        ['bad-two', target(node('process.exit(4)'))],
      ],
      { cwd: dir },
    ).catch((e) => e);
    expect(error.code).toBe('SY_PREFLIGHT_FAILED');
    expect(error.problems.map((p: { path: string }) => p.path)).toEqual([
      'targets.bad-one.runtime.preflight_command',
      'targets.bad-two.runtime.preflight_command',
    ]);
    expect(error.problems[0].message).toMatch(/exited 1:\n\s+quota check failed/);
  });
});
