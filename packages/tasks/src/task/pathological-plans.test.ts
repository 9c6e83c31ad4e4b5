import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePlan, readPlanSource } from './parse-plan.js';
import { WriteSetResolver } from './write-set-path.js';

const MiB = 1024 * 1024;
const FM = '---\nroute: local-G01\n---\n';
const planWith = (entries: string[]) =>
  `${FM}## Modified Files Summary\n\n${entries.map((e) => `- ${e}`).join('\n')}\n\n## Implementation Checklist\n\n- [ ] x\n`;

// Inputs a plan can hold within the 1 MiB cap that once overflowed the stack or ran away.
describe('the plan parser on pathological input (1 MiB each)', { timeout: 60_000 }, () => {
  const cases: Record<string, string> = {
    'a heading on every line': FM + '# a\n'.repeat(MiB / 4),
    'nested block quotes': `${FM}${'>'.repeat(MiB)} x\n`,
    'nested lists':
      FM + Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i * 2)}- x`).join('\n'),
    'one long line': `${FM}## Modified Files Summary\n\n- ${'a'.repeat(MiB)}\n`,
    'unclosed brackets': FM + '['.repeat(MiB / 2) + ']'.repeat(MiB / 2),
    'deeply nested YAML front matter': `---\nroute: ${'['.repeat(MiB / 2)}${']'.repeat(MiB / 2)}\n---\n`,
  };
  for (const [name, text] of Object.entries(cases))
    it(`${name}: coded problems, no throw`, () => {
      const plan = readPlanSource(text, { file: 'PLAN.md' });
      expect(plan.problems.length).toBeGreaterThan(0);
      for (const p of plan.problems) expect(p.code).toBe('SY_PLAN_INVALID');
    });

  it('refuses front matter nested deeper than 64 levels before the YAML parser sees it', () => {
    // found by the fuzzer: 60 KB of `{a: ` took the YAML parser seconds and overflowed its stack
    const plan = readPlanSource(
      `---\nroute: local-G01\ndepends_on: ${'{a: '.repeat(15_000)}\n---\n`,
      {
        file: 'PLAN.md',
      },
    );
    expect(plan.problems.filter((p) => /front matter/.test(p.message))).toMatchObject([
      { code: 'SY_PLAN_INVALID', line: 3, message: expect.stringMatching(/more than 64 levels/) },
    ]);
    // `- - - …` nests sequences on one line: the parser overflowed the main thread's stack
    const blocks = readPlanSource(`---\nroute: local-G01\n${'- '.repeat(4000)}x\n---\n`, {
      file: 'PLAN.md',
    });
    expect(blocks.problems[0]).toMatchObject({
      line: 3,
      message: expect.stringMatching(/more than 64 levels/),
    });
    const quoted = readPlanSource(`---\nroute: local-G01\ntarget: "${'['.repeat(100)}"\n---\n`, {
      file: 'PLAN.md',
    });
    expect(quoted.problems.map((p) => p.message).join()).not.toMatch(/levels/);
  });

  it('refuses a huge front matter before the YAML parser sees it', () => {
    const plan = readPlanSource(`---\nroute: ${'['.repeat(MiB / 2)}\n---\n`, { file: 'PLAN.md' });
    expect(plan.problems[0]?.message).toMatch(/front matter is over 65536 characters/);
  });
});

describe('write-set entries on a hostile file system', () => {
  let root: string;
  let ws: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sy-hostile-ws-'));
    ws = join(root, 'ws');
    mkdirSync(join(ws, 'src', 'dir'), { recursive: true });
    writeFileSync(join(root, 'victim.txt'), 'outside');
    linkSync(join(root, 'victim.txt'), join(ws, 'src', 'hard.ts'));
    execFileSync('mkfifo', [join(ws, 'src', 'pipe.ts')]);
    symlinkSync('/dev/null', join(ws, 'src', 'null.ts'));
    symlinkSync(join(ws, 'src', 'dir'), join(ws, 'src', 'dirlink.ts'));
    writeFileSync(join(ws, 'src', 'ok.ts'), '');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const check = (entry: string) => new WriteSetResolver(ws).check(entry);

  it('a path of 8,000 folders is a coded refusal, not a stack overflow', () => {
    const plan = parsePlan(planWith([`${'a/'.repeat(8000)}f.ts`]), {
      file: 'PLAN.md',
      workspace: ws,
    });
    expect(plan.problems).toHaveLength(1);
    expect(plan.problems[0]).toMatchObject({ code: 'SY_PLAN_INVALID' });
    expect(plan.problems[0]?.message).toMatch(/too long/);
  });

  it('refuses a hard link to a file outside the workspace', () => {
    expect(check('src/hard.ts')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/2 hard links/),
    });
  });

  it('refuses a FIFO', () => {
    expect(check('src/pipe.ts')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/FIFO/),
    });
  });

  it('refuses a symlink to a device (outside) and to a folder', () => {
    expect(check('src/null.ts')).toMatchObject({ ok: false });
    expect(check('src/dirlink.ts')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/directory \(through a symlink\)/),
    });
  });

  it('still accepts an ordinary file', () => {
    expect(check('src/ok.ts')).toEqual({ ok: true, path: 'src/ok.ts' });
  });
});
