import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentWorkspace, type Workspace } from '../dispatcher/helpers.js';
import { prompts } from '../isolation/git-workspace.js';

/** What the run reported about a task's write outside its write set, its names as given. */
function outsideWriteReport(ws: Workspace, task: string) {
  const violations = ws
    .events()
    .filter(
      (e) => e.type === 'task.isolation' && e.step === 'writeset-violation' && e.task === task,
    );
  const workers = prompts(ws, task, 'worker');
  // The check's work-log rows: [artifact, result, evidence file], FINISH rows only.
  const rows = ws
    .read('agent-task/archive/g/work_log_1.log')
    .split('\n')
    .map((line) => line.split(/(?<!\\)\|/).map((c) => c.trim()))
    .filter((cells) => cells[2] === 'FINISH' && cells[5] === 'writeset')
    .filter((cells) => cells[3]!.startsWith(`${task}/`))
    .map((cells) => [cells[3]!, cells[8]!, cells[9]!]);
  const violated = rows.find((r) => r[1] === 'writeset-violated');
  const evidence = violated ? JSON.parse(ws.read(violated[2]!)) : undefined;
  return {
    violations: violations.map((e) => ({ files: e.files, detail: e.detail })),
    workers: workers.length,
    secondPrompt: workers[1] ?? '',
    rows: rows.map(([artifact, result]) => [artifact, result]),
    evidence: evidence && {
      result: evidence.result,
      outside: evidence.outside,
      correction: evidence.correction,
    },
    archived: ws.exists(`agent-task/archive/${task}/complete.log`),
  };
}

/**
 * The shared workspace (no git: its write-set check compares snapshots of the workspace). One
 * worker changes the content of a file outside its write set, the other only that file's mode
 * (a chmod moves neither content, size nor mtime); both are told the same, naming the file.
 */
describe('a write outside the write set in the shared workspace (spawned CLI, fake agents)', {
  timeout: 240_000,
}, () => {
  it('a mode change of a file outside the write set is corrected like a content change, naming the file', async () => {
    const ws = agentWorkspace({
      cases: [
        {
          when: { role: 'worker', task: 'g/content', attempt: 1 },
          steps: [
            { write: { path: 'src/content.js', content: 'module.exports = 1;\n' } },
            { write: { path: 'tools/content.sh', content: 'echo changed\n' } },
            { fillChecklist: true },
          ],
        },
        {
          when: { role: 'worker', task: 'g/mode', attempt: 1 },
          steps: [
            { write: { path: 'src/mode.js', content: 'module.exports = 1;\n' } },
            { chmod: { path: 'tools/mode.sh', mode: '755' } },
            { fillChecklist: true },
          ],
        },
        {
          when: { role: 'worker', task: 'g/content' },
          steps: [
            { write: { path: 'src/content.js', content: 'module.exports = 2;\n' } },
            { fillChecklist: true },
          ],
        },
        {
          when: { role: 'worker', task: 'g/mode' },
          steps: [
            { write: { path: 'src/mode.js', content: 'module.exports = 2;\n' } },
            { fillChecklist: true },
          ],
        },
      ],
    });
    mkdirSync(ws.path('tools'));
    writeFileSync(ws.path('tools/content.sh'), 'echo hi\n', { mode: 0o644 });
    writeFileSync(ws.path('tools/mode.sh'), 'echo hi\n', { mode: 0o644 });
    ws.task('g/content', { files: ['src/content.js'] });
    // After the first: a snapshot round of one task never spans the other's writes.
    ws.task('g/mode', { files: ['src/mode.js'], dependsOn: ['g/content'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // Only the mode changed (a shared workspace has no git to put a file back).
    expect(statSync(ws.path('tools/mode.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(ws.path('tools/mode.sh'), 'utf8')).toBe('echo hi\n');

    const content = outsideWriteReport(ws, 'g/content');
    const mode = outsideWriteReport(ws, 'g/mode');
    // The content change: corrected, the file named in the correction and its evidence.
    const told =
      "files outside the plan's write set: src/content.js were changed: tools/content.sh. Undo those changes";
    expect(content.secondPrompt).toContain(told);
    expect(content.violations).toEqual([
      { files: ['tools/content.sh'], detail: expect.stringContaining(told) },
    ]);
    expect(content.evidence).toMatchObject({
      result: 'writeset-violated',
      outside: ['tools/content.sh'],
    });
    expect(content.workers).toBe(2);
    expect(content.archived).toBe(true);
    // The mode change: the same report, with its own names.
    const renamed = JSON.parse(
      JSON.stringify(mode)
        .replaceAll('g/mode', 'g/content')
        .replaceAll('src/mode.js', 'src/content.js')
        .replaceAll('tools/mode.sh', 'tools/content.sh'),
    );
    expect(renamed).toEqual({
      ...content,
      // The prompts differ in more than these names (task folders, attempt ids).
      secondPrompt: renamed.secondPrompt,
    });
    expect(mode.secondPrompt).toContain(
      "files outside the plan's write set: src/mode.js were changed: tools/mode.sh. Undo those changes",
    );
    expect(mode.rows).toEqual([
      ['g/mode/outside the write set: tools/mode.sh', 'writeset-violated'],
      ['g/mode/changed: src/mode.js', 'success'],
    ]);
    expect(mode.evidence?.outside).toEqual(['tools/mode.sh']);
    expect(mode.evidence?.correction).toContain('tools/mode.sh');
  });
});
