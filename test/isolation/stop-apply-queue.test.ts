import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RunResult, Workspace } from '../dispatcher/helpers.js';
import { git, gitWorkspace, sourceStatus, taskCommits, until } from './git-workspace.js';

const node = process.execPath;
const TASKS = Array.from({ length: 8 }, (_, i) => `g/t${String(i).padStart(2, '0')}`);

/**
 * A backlog of one-file tasks under worktree isolation whose applies can be held: every
 * task's definition of done passes at once in its worktree, but on the source (after the
 * apply moved it) it waits while `.scenario-hold` exists, saying so in `.scenario-dod-started`.
 * So the first task to apply holds, and every later one queues behind it.
 */
function heldBacklog(): Workspace {
  const ws = gitWorkspace(Object.fromEntries(TASKS.map((t) => [`src/${t.slice(2)}.js`, '0\n'])));
  const gate = ws.path('.scenario-gate.cjs');
  const hold = JSON.stringify(ws.path('.scenario-hold'));
  writeFileSync(
    gate,
    `const fs = require('node:fs');
if (fs.realpathSync(process.cwd()) === fs.realpathSync(${JSON.stringify(ws.dir)}) && fs.existsSync(${hold})) {
  fs.writeFileSync(${JSON.stringify(ws.path('.scenario-dod-started'))}, '');
  const wait = () => (fs.existsSync(${hold}) ? setTimeout(wait, 25) : process.exit(0));
  wait();
}
`,
  );
  ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, maxParallel: 2 });
  git(ws.dir, 'add', '-A');
  git(ws.dir, 'commit', '-qm', 'config');
  ws.catalog({
    t: {
      scenario: {
        cases: [
          { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
          ...TASKS.map((task) => ({
            when: { role: 'worker', task },
            steps: [
              { write: { path: `src/${task.slice(2)}.js`, content: `${task}\n` } },
              { fillChecklist: true },
            ],
          })),
        ],
      },
    },
  });
  for (const task of TASKS)
    ws.task(task, {
      files: [`src/${task.slice(2)}.js`],
      done: { command: `${node} ${gate}`, assertion: 'exit code 0' },
    });
  writeFileSync(ws.path('.scenario-hold'), '');
  return ws;
}

/**
 * The apply queue rule, checked on one run's events: once the queue announced that it holds
 * new tasks back (`admission.held`), no task is admitted for the first time until an apply
 * settles (none does here: the first one holds). Admission events of one scheduling pass all
 * come before the next pass announces, so this holds exactly, whatever the machine's load.
 */
function admittedWhileHeld(events: Array<Record<string, unknown>>): string[] {
  let held = false;
  const over: string[] = [];
  for (const e of events) {
    if (e.type === 'admission.held') held = true;
    if (e.type === 'task.isolation' && e.step !== 'worktree') held = false;
    if (e.type === 'task.admitted' && held) over.push(String(e.task));
  }
  return over;
}

/** A run of `switchyard run` (the real node binary, so signals reach the dispatcher itself). */
interface Run {
  pid: Promise<number>;
  done: Promise<RunResult>;
  /** Waits for `test`, failing at once (with the run's output) if the run ended first. */
  until(test: () => boolean, what: string): Promise<void>;
}

function start(ws: Workspace): Run {
  let resolvePid: (pid: number) => void = () => {};
  const pid = new Promise<number>((r) => {
    resolvePid = r;
  });
  let ended: RunResult | undefined;
  const done = ws.run([], { onSpawn: resolvePid }).then((r) => {
    ended = r;
    return r;
  });
  onTestFinished(async () => {
    rmSync(ws.path('.scenario-hold'), { force: true });
    try {
      process.kill(await pid, 'SIGKILL');
    } catch {}
  });
  return {
    pid,
    done,
    until: (test, what) =>
      until(
        () => {
          if (test()) return true;
          if (ended)
            throw new Error(
              `the run ended (${ended.code}) before ${what}: ${ended.stdout}${ended.stderr}`,
            );
          return false;
        },
        what,
        120_000,
      ),
  };
}

/** The tasks committed onto main, newest first (the setup's own commits have no task). */
const landedTasks = (ws: Workspace) => taskCommits(ws).filter((c) => c.task !== '');
const stateOf = (ws: Workspace, task: string) =>
  JSON.parse(readFileSync(ws.path('agent-task/.switchyard/tasks', `${task}.json`), 'utf8'));
const stoppings = (ws: Workspace) => ws.events().filter((e) => e.type === 'run.stopping');
const worktrees = (ws: Workspace) =>
  git(ws.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)!.length - 1;

describe('stop means stop under a long apply queue (worktree isolation)', {
  timeout: 300_000,
}, () => {
  it('admission follows the apply queue; a first SIGINT finishes only the apply under way, a second rolls it back; queued applies resume next run', async () => {
    const ws = heldBacklog();

    // Run 1: the first apply holds on the source; approved tasks queue behind it, and once two
    // wait no task that has not started is admitted (it would get a worktree).
    const first = start(ws);
    await first.until(() => ws.exists('.scenario-dod-started'), 'an apply under way');
    await first.until(
      () => ws.events().some((e) => e.type === 'admission.held'),
      'the apply queue holding new tasks back',
    );
    process.kill(await first.pid, 'SIGINT');
    await first.until(() => stoppings(ws).length === 1, 'the first stop announced');
    process.kill(await first.pid, 'SIGINT');
    const run1 = await first.done;
    expect(run1.code, run1.stdout + run1.stderr).toBe(130);
    expect(run1.stdout).toMatch(/aborting the apply under way/);
    const events1 = ws.events();
    expect(admittedWhileHeld(events1)).toEqual([]);
    const admitted = events1.filter((e) => e.type === 'task.admitted').map((e) => String(e.task));
    expect(admitted.length).toBeLessThan(TASKS.length);
    // The second SIGINT rolled the held apply back through its journal: nothing landed.
    expect(landedTasks(ws)).toEqual([]);
    const rolledBack = events1.filter(
      (e) => e.type === 'task.isolation' && e.step === 'rolled-back',
    );
    expect(rolledBack).toHaveLength(1);
    expect(sourceStatus(ws)).toBe('');
    const approved = [
      ...new Set(
        events1
          .filter((e) => e.type === 'review.verdict' && e.verdict === 'APPROVED')
          .map((e) => String(e.task)),
      ),
    ];
    expect(approved.length).toBeGreaterThanOrEqual(2);
    // Approved: the apply waits (its completion promise checked, or next).
    for (const task of approved) {
      expect(['promise', 'apply'], task).toContain(stateOf(ws, task).phase);
      expect(stateOf(ws, task).failures.apply, task).toBe(0);
    }
    const journals = ws.path('agent-task/.switchyard/isolation/apply/g');
    expect(existsSync(journals) ? readdirSync(journals) : []).toEqual([]);
    // Worktrees: the admitted tasks only, not the backlog.
    expect(worktrees(ws)).toBe(admitted.length);

    // Run 2: one SIGINT while an apply holds: that apply lands, the queued ones wait.
    rmSync(ws.path('.scenario-dod-started'));
    // Run 1's second SIGINT may or may not have logged its own announcement before it exited.
    const stoppedBefore = stoppings(ws).length;
    const second = start(ws);
    await second.until(() => ws.exists('.scenario-dod-started'), 'an apply under way');
    process.kill(await second.pid, 'SIGINT');
    await second.until(() => stoppings(ws).length > stoppedBefore, 'the stop announced');
    rmSync(ws.path('.scenario-hold'));
    const run2 = await second.done;
    expect(run2.code, run2.stdout + run2.stderr).toBe(130);
    const landed = landedTasks(ws).map((c) => c.task);
    expect(landed).toHaveLength(1);
    const queued = approved.filter((t) => !landed.includes(t));
    expect(queued.length).toBe(approved.length - 1);
    for (const task of queued)
      expect(['promise', 'apply'], task).toContain(stateOf(ws, task).phase);
    expect(sourceStatus(ws)).toBe('');

    // Run 3: everything lands, one commit per task, and no worktree is left.
    const run3 = await start(ws).done;
    expect(run3.code, run3.stdout + run3.stderr).toBe(0);
    expect(
      landedTasks(ws)
        .map((c) => c.task)
        .sort(),
    ).toEqual(TASKS);
    expect(worktrees(ws)).toBe(0);
    expect(existsSync(ws.path('agent-task/archive/g/t07/complete.log'))).toBe(true);
  });
});
