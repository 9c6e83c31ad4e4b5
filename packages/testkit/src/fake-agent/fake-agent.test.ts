import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { capturedFault } from './faults.js';
import { FAKE_FAULTS } from './scenario.js';

const bin = fileURLToPath(new URL('../../dist/fake-agent-bin.js', import.meta.url));

function setup(scenario: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sy-fake-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenario);
  const run = (args: string[] = [], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [bin, '--scenario', file, ...args, 'the prompt'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', SWITCHYARD_WORKSPACE: dir, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return {
      code: r.status,
      signal: r.signal,
      stdout: r.stdout,
      stderr: r.stderr,
      events: r.stdout.split('\n').filter(Boolean),
    };
  };
  return { dir, file, run };
}

describe('switchyard-fake-agent', () => {
  it('keys behaviour on attempt number and role (state file), like a flaky target', () => {
    const { run } = setup(`format: claude-code
cases:
  - when: { role: worker, attempt: 1 }
    steps: [{ fault: quota }]
  - when: { role: review }
    steps: [{ say: reviewing }]
steps:
  - write: { path: src/out.txt, content: "done\\n" }
  - result: finished
`);
    const worker = {
      SWITCHYARD_ROLE: 'worker',
      SWITCHYARD_TASK_ID: 'g/t',
      SWITCHYARD_TARGET_ID: 'a',
    };
    const first = run([], worker);
    expect(first.code).toBe(1);
    expect(JSON.parse(first.events.at(-1)!)).toMatchObject({
      type: 'result',
      is_error: true,
      result: expect.stringMatching(/^API Error: Request rejected \(429\)/),
    });
    const second = run([], worker);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.events[0]!)).toMatchObject({
      type: 'system',
      subtype: 'init',
      session_id: expect.any(String),
    });
    expect(JSON.parse(second.events.at(-1)!)).toMatchObject({
      type: 'result',
      is_error: false,
      result: 'finished',
    });
    // another target counts its own attempts
    expect(run([], { ...worker, SWITCHYARD_TARGET_ID: 'b' }).code).toBe(1);
    expect(run([], { SWITCHYARD_ROLE: 'review' }).stdout).toContain('reviewing');
  });

  it('edits workspace files, fills the checklist, writes the review and next plan', () => {
    const { dir, run } = setup(`format: codex
steps:
  - write: { path: src/a.ts, content: "export const a = 1;\\n" }
  - fillChecklist: done
  - review: "verdict: changes requested"
    nextPlan: "# next plan"
`);
    const plan = join(dir, 'PLAN.md');
    writeFileSync(plan, '## Implementation Checklist\n\n- [ ] add a\n- [ ] test a\n');
    const r = run([], {
      SWITCHYARD_PLAN: plan,
      SWITCHYARD_REVIEW_FILE: join(dir, 'REVIEW.md'),
      SWITCHYARD_NEXT_PLAN: join(dir, 'PLAN-2.md'),
    });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(readFileSync(plan, 'utf8')).toBe(
      '## Implementation Checklist\n\n- [x] add a done\n- [x] test a done\n',
    );
    expect(readFileSync(join(dir, 'REVIEW.md'), 'utf8')).toBe('verdict: changes requested');
    expect(readFileSync(join(dir, 'PLAN-2.md'), 'utf8')).toBe('# next plan');
    expect(JSON.parse(r.events[0]!)).toMatchObject({ type: 'thread.started' });
    expect(JSON.parse(r.events.at(-1)!)).toMatchObject({ type: 'turn.completed' });
  });

  it('does what a hostile agent does: links, copies and removes, with ${NAME} paths', () => {
    const { dir, run } = setup(`steps:
  - write: { path: "\${OUTSIDE}/victim", content: "outside\\n" }
  - link: { target: "\${OUTSIDE}/victim", path: hard.txt, hard: true }
  - link: { target: /etc/hostname, path: soft.txt }
  - copy: { from: "\${OUTSIDE}", to: copied }
  - remove: "\${OUTSIDE}/victim"
`);
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    expect(run([], { OUTSIDE: outside }).code).toBe(0);
    expect(readFileSync(join(dir, 'hard.txt'), 'utf8')).toBe('outside\n');
    expect(statSync(join(dir, 'hard.txt')).nlink).toBe(1); // its twin was removed last
    expect(readlinkSync(join(dir, 'soft.txt'))).toBe('/etc/hostname');
    expect(readFileSync(join(dir, 'copied/victim'), 'utf8')).toBe('outside\n');
    expect(existsSync(join(outside, 'victim'))).toBe(false);
  });

  it('changes only the mode of a file with chmod, and refuses a mode that is not octal in a string', () => {
    const { dir, run } = setup(`steps:
  - chmod: { path: "\${TOOLS}/run.sh", mode: "750" }
`);
    mkdirSync(join(dir, 'tools'));
    writeFileSync(join(dir, 'tools/run.sh'), 'echo hi\n', { mode: 0o644 });
    const before = statSync(join(dir, 'tools/run.sh'));
    const r = run([], { TOOLS: 'tools' });
    expect(r.code, r.stderr).toBe(0);
    const after = statSync(join(dir, 'tools/run.sh'));
    expect(after.mode & 0o7777).toBe(0o750);
    expect(readFileSync(join(dir, 'tools/run.sh'), 'utf8')).toBe('echo hi\n');
    expect(after.mtimeMs).toBe(before.mtimeMs);
    const bad = setup(
      'steps: [{ chmod: { path: a, mode: 755 } }, { chmod: { path: a, mode: "u+x" } }, { chmod: { path: a } }]\n',
    ).run();
    expect(bad.code).toBe(2);
    const octal = 'expected permission bits in octal, as a string such as "755" or "0644"';
    for (const n of [0, 1, 2]) expect(bad.stderr).toContain(`steps.${n}.chmod.mode: ${octal}`);
  });

  it('stops at a chmod or copy of a missing path with a message naming the step and the path', () => {
    for (const [step, name] of [
      ['chmod: { path: "${GONE}/run.sh", mode: "755" }', 'chmod'],
      ['copy: { from: "${GONE}/run.sh", to: copied/run.sh }', 'copy'],
    ] as const) {
      const { dir, run } = setup(
        `steps:\n  - ${step}\n  - write: { path: after.txt, content: x }\n`,
      );
      const r = run([], { GONE: 'gone' });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `fake agent: ${name}: no such file or folder: ${join(dir, 'gone/run.sh')}`,
      );
      expect(r.stderr).not.toMatch(/^Error: ENOENT/m);
      // Nothing after the failed step ran, and the copy made no folder for what it never had.
      expect(existsSync(join(dir, 'after.txt'))).toBe(false);
      expect(existsSync(join(dir, 'copied'))).toBe(false);
    }
  });

  it('honours resume only for a session it issued', () => {
    const { run } = setup(
      'format: gemini-cli\nsessionId: 11111111-2222-4333-8444-555555555555\nsteps: [{ say: hi }]\n',
    );
    expect(run().code).toBe(0);
    const resumed = run(['--resume', '11111111-2222-4333-8444-555555555555']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.events[0]!)).toMatchObject({
      type: 'init',
      session_id: '11111111-2222-4333-8444-555555555555',
    });
    const unknown = run(['--resume', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('No conversation found with session ID: nope\n');
  });

  it('crashes by exit code or signal, and rejects an invalid scenario with every problem', () => {
    expect(setup('steps: [{ print: bye, stream: stderr }, { exit: 7 }]').run().code).toBe(7);
    expect(setup('steps: [{ kill: SIGSEGV }]').run().signal).toBe('SIGSEGV');
    const bad = setup('format: nope\nsteps: [{ sleep: -1 }, { unknown: 1 }]\n').run();
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^switchyard-fake-agent: invalid fake-agent scenario/);
    expect(bad.stderr).toContain('format');
    expect(bad.stderr).toContain('steps.0');
    expect(bad.stderr).toContain('steps.1');
  });

  it('prints provider faults exactly as the real CLIs printed them (captures)', () => {
    const text = setup('steps: [{ fault: quota }]').run();
    expect(text.code).toBe(1);
    expect(text.stdout).toBe(
      'API Error: Request rejected (429) · Rate limit reached: you have exceeded your request quota. Please try again in 30s.\n',
    );
    const codex = setup('format: codex\nsessionId: s-1\nsteps: [{ fault: quota }]').run();
    expect(codex.code).toBe(1);
    expect(codex.events.slice(0, 2).map((l) => JSON.parse(l).type)).toEqual([
      'thread.started',
      'turn.started',
    ]);
    expect(codex.events.at(-1)).toBe(
      '{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}',
    );
  });
});

describe('captured faults', () => {
  it('cover every fault for each CLI in both modes, with the session id swapped in', () => {
    for (const cli of ['claude-code', 'codex', 'gemini-cli', 'qwen-code'] as const) {
      for (const fault of FAKE_FAULTS) {
        const jsonl = capturedFault(cli, fault, 'my-session');
        const text = capturedFault('text', fault, 'my-session', cli);
        expect(jsonl, `${cli} jsonl ${fault}`).toBeDefined();
        expect(text, `${cli} text ${fault}`).toBeDefined();
        expect(jsonl!.exitCode + text!.exitCode).toBeGreaterThan(0);
      }
    }
    const claude = capturedFault('claude-code', 'quota', 'my-session')!;
    expect(claude.stdout.at(-1)).toContain('"session_id":"my-session"');
    expect(JSON.parse(claude.stdout.at(-1)!)).toMatchObject({
      type: 'result',
      is_error: true,
      api_error_status: 429,
    });
  });
});
