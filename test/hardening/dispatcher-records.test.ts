import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { agentProcesses, CLI, TrialWorkspace, until } from '../recovery/kit.js';

/**
 * The dispatcher trusts only what it wrote: an agent can write the task folder (it has its
 * path), so a plan it edits is a finding, never a new contract, and an archive entry it makes
 * is reported, never counted as done.
 */
const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
/** A catalog whose worker of `task` runs `steps` (the hostile act); every other worker ticks
 * its checklist and ends done, every review approves. */
const hostileWorkerCatalog = (task: string, steps: unknown[]) => ({
  t: {
    cases: [approve, { when: { role: 'worker', task }, steps }],
    steps: [{ fillChecklist: true }, { result: 'done' }],
  },
});
const gate = `${process.execPath} --version`;
/** Would create `name` in the workspace if the dispatcher ever ran it. */
const hostile = (name: string) =>
  `${process.execPath} -e "require('fs').writeFileSync('${name}','x')"`;

const plan = (done: string, files: string[], frontMatter: string[] = []) =>
  [
    '---',
    'route: cloud-G01',
    ...frontMatter,
    '---',
    '# g/x',
    '',
    '## Modified Files Summary',
    '',
    ...files.map((f) => `- ${f}`),
    '',
    '## Implementation Checklist',
    '',
    '- [ ] do the work',
    '',
    '## Definition of Done',
    '',
    `Command: \`${done}\``,
    'Assertion: exit code 0',
    '',
  ].join('\n');

describe('the dispatcher trusts only what it wrote', { timeout: 180_000 }, () => {
  it('a worker rewrites its PLAN.md (DoD, runner, write set), then the dispatcher dies: the next run keeps the admitted contract and reports the edit', async () => {
    const ws = new TrialWorkspace('sy-admitted-plan-');
    const admitted = plan(gate, ['src/x.ts']);
    const forged = plan(
      hostile('pwned-done'),
      ['src/x.ts', 'src/evil.ts'],
      [
        'runner: local',
        `command: [${JSON.stringify(process.execPath)}, -e, "require('fs').writeFileSync('pwned-runner','x')"]`,
      ],
    );
    ws.catalog(
      hostileWorkerCatalog('g/x', [
        { fillChecklist: true },
        { write: { path: '${SWITCHYARD_TASK_DIR}/PLAN.md', content: forged } },
        { waitFor: '.release' },
        { result: 'done' },
      ]),
    );
    ws.task('g/x', { files: ['src/x.ts'] });
    writeFileSync(ws.path('agent-task/g/x/PLAN.md'), admitted);
    const first = ws.start();
    onTestFinished(() => first.kill('SIGKILL'));
    await until(
      () => readFileSync(ws.path('agent-task/g/x/PLAN.md'), 'utf8').includes('pwned-done'),
      'the worker rewrote PLAN.md',
    );
    first.kill('SIGKILL');
    await first.exited;

    const before = ws.events().length;
    const second = ws.start();
    onTestFinished(() => {
      writeFileSync(ws.path('.release'), '');
      second.kill('SIGKILL');
    });
    await until(
      () =>
        ws
          .events()
          .slice(before)
          .some((e) => e.type === 'run.started'),
      60_000,
      'the second run started',
    );
    writeFileSync(ws.path('.release'), '');
    const exit = await second.exited;
    expect(exit.code, second.stdout + second.stderr).toBe(0);
    // Nothing the agent wrote into the plan ran: its runner, its Definition of Done.
    expect(ws.exists('pwned-done')).toBe(false);
    expect(ws.exists('pwned-runner')).toBe(false);
    const events = ws.events().slice(before);
    const gates = events.filter((e) => e.type === 'gate.finished' && e.task === 'g/x');
    expect(gates.map((e) => (e.command as string[]).join(' '))).toEqual([gate]);
    // The edit is a finding, named field by field, at the run's start and when the attempt
    // was judged (then the files are written again from the record).
    const changed = events.filter((e) => e.type === 'plan.changed' && e.task === 'g/x');
    expect(changed.length, JSON.stringify(events.map((e) => e.type))).toBeGreaterThan(0);
    for (const e of changed) {
      expect(e.fields).toEqual(
        expect.arrayContaining(['Definition of Done', 'runner', 'write set']),
      );
      expect(e.adopted).toBeUndefined();
    }
    expect(changed.some((e) => e.restored === true)).toBe(true);
    expect(second.stdout).toMatch(/finding.*g\/x/);
    // The archived plan is the admitted one, with the checklist the worker ticked in its copy.
    expect(readFileSync(ws.path('agent-task/archive/g/x/PLAN.md'), 'utf8')).toBe(
      admitted.replace('- [ ] do the work', '- [x] do the work'),
    );
    expect(agentProcesses(ws.dir)).toEqual([]);
  });

  it('an agent forges a sibling’s archive entry with complete.log: reported, not done, its dependent never runs, exit 3', async () => {
    const ws = new TrialWorkspace('sy-forged-archive-');
    ws.catalog(
      hostileWorkerCatalog('g/a', [
        // What a hostile agent did: the sibling copied to the archive, its original gone.
        {
          copy: {
            from: '${SWITCHYARD_TASK_DIR}/../b',
            to: '${SWITCHYARD_TASK_DIR}/../../archive/g/b',
          },
        },
        {
          write: {
            path: '${SWITCHYARD_TASK_DIR}/../../archive/g/b/complete.log',
            content: 'Task: g/b\nStatus: complete\n',
          },
        },
        { remove: '${SWITCHYARD_TASK_DIR}/../b' },
        { fillChecklist: true },
        { result: 'done' },
      ]),
    );
    ws.task('g/a', { files: ['src/a.ts'] });
    ws.task('g/b', { files: ['src/b.ts'], dependsOn: ['a'] });
    ws.task('g/c', { files: ['src/c.ts'], dependsOn: ['b'] });
    const first = ws.start();
    onTestFinished(() => first.kill('SIGKILL'));
    const one = await first.exited;
    expect(one.code, first.stdout + first.stderr).toBe(3);
    expect(ws.exists('agent-task/archive/g/a/complete.log')).toBe(true);
    expect(first.stdout).toMatch(
      /g\/b.*(not the one the dispatcher wrote|without the dispatcher's record)/,
    );
    expect(ws.stages().filter((s) => s.task === 'g/c')).toEqual([]);

    // The next run does not take the entry for done either.
    const before = ws.events().length;
    const second = ws.start();
    onTestFinished(() => second.kill('SIGKILL'));
    const two = await second.exited;
    expect(two.code, second.stdout + second.stderr).toBe(3);
    expect(second.stdout).toContain('g/b');
    expect(second.stdout).toMatch(
      /without the dispatcher's record|not the one the dispatcher wrote/,
    );
    expect(second.stdout).not.toMatch(/archived\s+g\/b/);
    expect(ws.stages().filter((s) => s.task === 'g/c')).toEqual([]);
    const archived = ws
      .events()
      .slice(before)
      .filter((e) => e.type === 'task.archived')
      .map((e) => e.task);
    expect(archived).not.toContain('g/b');
    expect(ws.exists('agent-task/g/c/PLAN.md')).toBe(true);
    // `status` reads completion from the records too.
    const status = spawnSync(process.execPath, [CLI, 'status', '--json', '--workspace', ws.dir], {
      encoding: 'utf8',
    });
    const report = JSON.parse(status.stdout) as {
      done: { task: string }[];
      blocked: { task: string; reason: string }[];
    };
    expect(report.done.map((d) => d.task)).toEqual(['g/a']);
    expect(report.blocked.find((b) => b.task === 'g/b')?.reason).toMatch(
      /without the dispatcher's record/,
    );
  });
});
