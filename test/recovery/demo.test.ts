import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from './kit.js';

/** `switchyard demo` end to end: the bundled backlog through the real dispatcher. */
describe('switchyard demo', () => {
  it('runs the bundled backlog to exit 0 with the failover, collision and review loop, and says where to look', {
    timeout: 300_000,
  }, () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sy-demo-test-')), 'ws');
    const run = spawnSync(process.execPath, [CLI, 'demo', '--dir', dir], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 280_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain('switchyard demo: six tasks');
    expect(out).toMatch(
      /failover\s+core\/format worker: swift-cloud -> steady-cloud \(provider-quota/,
    );
    expect(out).toMatch(
      /waiting\s+core\/count: src\/index.js held by core\/format|waiting\s+core\/format: src\/index.js held by core\/count/,
    );
    expect(out).toMatch(/review\s+cli\/main loop 1: CHANGES_REQUESTED/);
    expect(out).toMatch(/plan loop\s+cli\/main -> loop 2/);
    expect(out).toContain('Done: 6 task(s) archived');
    expect(out).toContain('Where to look');
    // Dependency order: cli/main only after both core tasks it depends on were archived.
    expect(out.indexOf('admitted   cli/main')).toBeGreaterThan(
      out.indexOf('archived   core/count'),
    );
    expect(out.indexOf('admitted   cli/main')).toBeGreaterThan(
      out.indexOf('archived   core/format'),
    );

    for (const id of [
      'core/tokenize',
      'core/count',
      'core/format',
      'cli/main',
      'cli/help',
      'docs/readme',
    ]) {
      expect(existsSync(join(dir, 'agent-task/archive', id, 'complete.log')), id).toBe(true);
    }
    for (const group of ['core', 'cli', 'docs'])
      expect(existsSync(join(dir, 'agent-task/archive', group, 'work_log_1.log'))).toBe(true);
    expect(
      readFileSync(join(dir, 'agent-task/archive/cli/main/CODE_REVIEW-2.md'), 'utf8'),
    ).toContain('Verdict: APPROVED');
    // The failed quota attempt's evidence is kept whole; successful ones keep only what the
    // logs cite (locator, prompt, normalized transcript).
    const attempts = join(dir, 'agent-task/.switchyard/attempts');
    const whole = readdirSync(attempts).filter((a) => existsSync(join(attempts, a, 'stdout.raw')));
    expect(whole).toHaveLength(1);
    expect(whole[0]).toMatch(/^core\.format\.worker\.1\./);
    for (const a of readdirSync(attempts))
      expect(existsSync(join(attempts, a, 'locator.json')), a).toBe(true);
    // What the fake agents wrote is a working program, in a real git repository.
    const tally = spawnSync(process.execPath, [join(dir, 'bin/tally.js')], {
      input: 'the cat saw the dog\n',
      encoding: 'utf8',
    });
    expect(tally.stdout).toContain('4 distinct of 5 words');
    const empty = spawnSync(process.execPath, [join(dir, 'bin/tally.js')], {
      input: '',
      encoding: 'utf8',
    });
    expect(empty.stdout.trim()).toBe('no words');
    // Worktree isolation: one commit per task on main, the code in the source clean.
    const log = spawnSync(
      'git',
      ['-C', dir, 'log', '--format=%(trailers:key=Switchyard-Task,valueonly,separator=)'],
      { encoding: 'utf8' },
    );
    expect(log.stdout.split('\n').filter(Boolean).sort()).toEqual(
      ['cli/help', 'cli/main', 'core/count', 'core/format', 'core/tokenize', 'docs/readme'].sort(),
    );
    const git = spawnSync(
      'git',
      ['-C', dir, 'status', '--porcelain', '--', 'src', 'bin', 'docs', 'README.md', 'TODO.md'],
      { encoding: 'utf8' },
    );
    expect(git.stdout).toBe('');
    // The write-set correction: docs/readme's TODO.md was reset, never committed.
    expect(out).toMatch(/git\s+docs\/readme: files outside .* TODO\.md/);
    expect(existsSync(join(dir, 'TODO.md'))).toBe(false);
  });

  it('refuses a --dir that is not empty (exit 2)', () => {
    const result = spawnSync(process.execPath, [CLI, 'demo', '--dir', tmpdir()], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('exists and is not empty');
  });
});
