import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../engine/cli-in-process.js';
import { agentWorkspace, CLI } from './helpers.js';

// The crashed run is a spawned dispatcher (SIGKILL); status and resume run the CLI's own entry
// in this process (test/engine/cli-in-process.ts), the agents they re-attach to are processes.
describe('sessions: status and resume of a crashed run (real processes)', {
  timeout: 120_000,
}, () => {
  it('records each run as a session; a SIGKILLed session is resumed without redoing anything', async () => {
    const ws = agentWorkspace({
      cases: [
        {
          when: { task: 'g/slow', role: 'worker' },
          steps: [{ waitFor: '.scenario-release' }, { fillChecklist: true }],
        },
      ],
    });
    ws.task('g/fast', { files: ['src/fast.ts'] });
    ws.task('g/slow', { files: ['src/slow.ts'] });
    ws.task('g/after', { files: ['src/after.ts'], dependsOn: ['slow'] });
    const child = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--workspace',
        ws.dir,
        '--execution-catalog',
        ws.catalogFile,
        '--json',
        '--max-parallel',
        '2',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const killed = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_c, s) => r(s)));
    // Kill the dispatcher once g/fast is archived and recorded done (the announcement comes
    // first: ./archive-announcement.ts) and g/slow's worker runs.
    const fastDone = () => {
      const file = 'agent-task/.switchyard/tasks/g/fast.json';
      return ws.exists(file) && JSON.parse(ws.read(file)).phase === 'done';
    };
    let poll: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const ready = () => fastDone() && /"attempt.started"[^\n]*"g\/slow"/.test(out);
      poll = setInterval(() => ready() && resolve(), 25);
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.on('close', () => reject(new Error(`run ended early:\n${out}`)));
    }).finally(() => clearInterval(poll));
    child.kill('SIGKILL');
    expect(await killed).toBe('SIGKILL');

    const sessions = readdirSync(ws.path('agent-task/.switchyard/sessions'));
    expect(sessions).toHaveLength(1);
    const id = sessions[0]!;
    for (const f of ['plan.json', 'status.json', 'events.jsonl'])
      expect(ws.exists(`agent-task/.switchyard/sessions/${id}/${f}`)).toBe(true);
    const listed = await cli(['status', '--workspace', ws.dir, '--sessions', '--json']);
    expect(JSON.parse(listed.stdout).sessions).toMatchObject([{ id, state: 'crashed', tasks: 3 }]);
    const crashed = await cli(['status', id, '--workspace', ws.dir, '--json']);
    const report = JSON.parse(crashed.stdout);
    expect(report.session).toMatchObject({ id, state: 'crashed', options: { maxParallel: 2 } });
    expect(report.tasks.find((t: { task: string }) => t.task === 'g/fast').state).toBe('done');
    const text = await cli(['status', id, '--workspace', ws.dir]);
    expect(text.stdout).toContain(`continue it with: switchyard resume ${id}`);

    // The orphaned agent may finish now; resume re-attaches or judges it, never restarts it.
    writeFileSync(ws.path('.scenario-release'), '');
    const resumed = await cli(['resume', '--workspace', ws.dir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`session ${id} (resumed)`);
    for (const t of ['fast', 'slow', 'after'])
      expect(ws.exists(`agent-task/archive/g/${t}/complete.log`)).toBe(true);
    const starts = (task: string, role: string) =>
      ws.events().filter((e) => e.type === 'attempt.started' && e.task === task && e.role === role)
        .length;
    expect(starts('g/fast', 'worker')).toBe(1);
    expect(starts('g/slow', 'worker')).toBe(1);
    const after = JSON.parse((await cli(['status', id, '--workspace', ws.dir, '--json'])).stdout);
    expect(after.session.state).toBe('finished');
    expect(after.session.status.runs).toHaveLength(2);
    expect(after.tasks.every((t: { state: string }) => t.state === 'done')).toBe(true);
    // A finished session has nothing to resume.
    const again = await cli(['resume', id, '--workspace', ws.dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('nothing to resume');
    // Unknown ids are refused.
    const unknown = await cli(['resume', 's-20200101T000000Z-abcd', '--workspace', ws.dir]);
    expect(unknown.code).toBe(2);
  });
});
