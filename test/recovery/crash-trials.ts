import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  agentProcesses,
  executions,
  overlaps,
  planText,
  type StageLine,
  seededRandom,
  sleep,
  TrialWorkspace,
} from './kit.js';

/**
 * SIGKILL the dispatcher at random moments, restart it, and prove the seed's recovery
 * contract: every task archived exactly once, no task ever had two stages running at once,
 * no two claim-colliding tasks ran at once, no claim orphaned, no agent left, exit 0 at the
 * end. Replay a failure with SWITCHYARD_CRASH_SEED=<seed printed below>.
 *
 * The trials are dealt over the files crash-trials-<part>.test.ts (`describeCrashTrials(part,
 * parts)`), so the test runner's workers share them out instead of one file holding a worker
 * for the whole set. Each part draws the set's trial seeds from its seed and runs its share (every
 * `parts`-th trial); with SWITCHYARD_CRASH_SEED all parts draw the same set.
 */
const TRIALS = Number(process.env.SWITCHYARD_CRASH_TRIALS ?? 20);
/** Replays single trials by their own seed (comma-separated), e.g. one a soak reported. */
const TRIAL_SEEDS = (process.env.SWITCHYARD_CRASH_TRIAL_SEEDS ?? '')
  .split(',')
  .filter((s) => s.trim() !== '')
  .map(Number);

/** Backlog: dependencies (within and across groups), two claim collisions, a review loop and
 * a quota failover. `files` sharing a path are serialized by claims. */
const BACKLOG: Record<string, { files: string[]; dependsOn?: string[] }> = {
  'core/a': { files: ['src/shared.ts', 'src/a.ts'] },
  'core/b': { files: ['src/b.ts'], dependsOn: ['a'] },
  'core/c': { files: ['src/shared.ts'] },
  'core/d': { files: ['src/d.ts'], dependsOn: ['b', 'c'] },
  'ui/e': { files: ['ui/e.ts'], dependsOn: ['core/a'] },
  'ui/f': { files: ['ui/e.ts', 'ui/f.ts'] },
  'ui/g': { files: ['ui/g.ts'], dependsOn: ['e', 'f'] },
  'ui/h': { files: ['ui/h.ts'] },
};

const work = [{ say: 'working' }, { sleep: 120 }, { fillChecklist: true }, { result: 'done' }];
const slow = [{ say: 'working' }, { sleep: 6000 }, { fillChecklist: true }, { result: 'done' }];
const slower = [{ say: 'working' }, { sleep: 15_000 }, { fillChecklist: true }, { result: 'done' }];
const approve = {
  when: { role: 'review' },
  steps: [{ sleep: 60 }, { review: 'Verdict: APPROVED\n' }],
};
const plan2 = planText('core/d follow-up', {
  files: ['src/d.ts'],
  checklist: ['address the review'],
})
  .split('\n')
  .slice(4)
  .join('\n');

function backlog(): TrialWorkspace {
  const ws = new TrialWorkspace('sy-crash-');
  // The reviews run on `backup` (a target never reviews its own work while the route has
  // another), except ui/g's, whose worker fails over to backup.
  const loop = {
    when: { role: 'review', task: 'core/d', attempt: 1 },
    steps: [
      { sleep: 40 },
      {
        review: 'Verdict: CHANGES_REQUESTED\n\n- [MODERATE] handle the empty case\n',
        nextPlan: plan2,
      },
    ],
  };
  ws.catalog({
    primary: {
      cases: [
        { when: { role: 'worker', task: 'ui/g', attempt: 1 }, steps: [{ fault: 'quota' }] },
        approve,
        // Long workers: a kill often lands while they run, so the restart must re-attach.
        { when: { role: 'worker', task: 'core/a' }, steps: slow },
        { when: { role: 'worker', task: 'ui/h' }, steps: slower },
      ],
      steps: work,
    },
    backup: { cases: [loop, approve], steps: work },
  });
  for (const [id, spec] of Object.entries(BACKLOG)) ws.task(id, spec);
  return ws;
}

interface TrialOutcome {
  trial: number;
  kills: string[];
  codes: Array<number | null>;
  notes: string[];
  executions: number;
  reattached: number;
  /** Agent runs that succeeded again after the stage had already succeeded. */
  repeated: number;
  ms: number;
}

/** Successful runs the backlog needs per task and role (core/d has a second plan loop). */
const NEEDED_SUCCESSES = (task: string) => (task === 'core/d' ? 2 : 1);

/** Agent runs that ended with exit 0 beyond what the backlog needs: repeated work. */
function repeatedSuccesses(lines: readonly StageLine[]): number {
  const successes = new Map<string, number>();
  for (const line of lines) {
    if (line.ev !== 'end' || line.rc !== 0) continue;
    const key = `${line.task}\u0000${line.role}`;
    successes.set(key, (successes.get(key) ?? 0) + 1);
  }
  let repeated = 0;
  for (const [key, count] of successes)
    repeated += Math.max(0, count - NEEDED_SUCCESSES(key.split('\u0000')[0]!));
  return repeated;
}

/** When to kill: a time after spawn, or just after the k-th attempt event of this run (so
 * kills land during real work: before a spawn is recorded, mid-attempt, mid-archive...). */
type KillPoint = { afterMs: number } | { afterEvents: number; plusMs: number };

function killPoint(random: () => number): KillPoint {
  if (random() < 0.25) return { afterMs: 300 + Math.floor(random() * 2700) };
  return { afterEvents: 1 + Math.floor(random() * 8), plusMs: Math.floor(random() * 700) };
}

async function waitFor(
  ws: TrialWorkspace,
  point: KillPoint,
  baseline: number,
  exited: () => boolean,
): Promise<void> {
  if ('afterMs' in point) return sleep(point.afterMs);
  const attemptEvents = () =>
    ws.events().filter((e) => e.type.startsWith('attempt.')).length - baseline;
  while (!exited() && attemptEvents() < point.afterEvents) await sleep(20);
  await sleep(point.plusMs);
}

const describePoint = (p: KillPoint) =>
  'afterMs' in p ? `${p.afterMs}ms` : `event ${p.afterEvents}+${p.plusMs}ms`;

async function trial(
  n: number,
  random: () => number,
): Promise<{ ws: TrialWorkspace; outcome: TrialOutcome }> {
  const began = Date.now();
  const ws = backlog();
  const points = Array.from({ length: 1 + Math.floor(random() * 3) }, () => killPoint(random));
  const codes: Array<number | null> = [];
  const notes: string[] = [];
  for (const point of points) {
    const baseline = ws.events().filter((e) => e.type.startsWith('attempt.')).length;
    const run = ws.start(['--max-parallel', '3']);
    let done = false;
    void run.exited.then(() => {
      done = true;
    });
    await waitFor(ws, point, baseline, () => done);
    if (!done) run.kill('SIGKILL');
    const exit = await run.exited;
    codes.push(exit.code);
    // A run that ended on its own before the kill must have ended cleanly.
    if (exit.code !== null && exit.code !== 0)
      notes.push(`run exited ${exit.code}: ${(run.stdout + run.stderr).slice(-600)}`);
    // Sometimes restart at once (agents still running: re-attach), sometimes let them finish.
    if (random() < 0.4) await sleep(Math.floor(random() * 400));
  }
  const final = ws.start(['--max-parallel', '3']);
  const exit = await final.exited;
  codes.push(exit.code);
  if (exit.code !== 0)
    throw new Error(`trial ${n}: final run exited ${exit.code}\n${final.stdout}\n${final.stderr}`);
  const reattached = ws.events().filter((e) => e.type === 'attempt.started' && e.reattached).length;
  const kills = points.map(describePoint);
  return {
    ws,
    outcome: {
      trial: n,
      kills,
      codes,
      notes,
      executions: executions(ws.stages()).length,
      reattached,
      repeated: repeatedSuccesses(ws.stages()),
      ms: Date.now() - began,
    },
  };
}

/** The trials of part `part` (1-based) of `parts`: every `parts`-th one of the whole set. */
export function describeCrashTrials(part: number, parts: number): void {
  const SEED = Number(process.env.SWITCHYARD_CRASH_SEED ?? Date.now() % 2 ** 31);
  console.log(
    TRIAL_SEEDS.length > 0
      ? `crash trials (part ${part}/${parts}): replaying trial seeds ${TRIAL_SEEDS.join(', ')}`
      : `crash trials (part ${part}/${parts}): ${TRIALS} trials, seed ${SEED} (replay: SWITCHYARD_CRASH_SEED=${SEED})`,
  );
  const random = seededRandom(SEED);
  const plans = (
    TRIAL_SEEDS.length > 0
      ? TRIAL_SEEDS.map((seed, i) => ({ n: i + 1, seed }))
      : Array.from({ length: TRIALS }, (_, i) => ({
          n: i + 1,
          seed: Math.floor(random() * 2 ** 31),
        }))
  ).filter(({ n }) => (n - 1) % parts === part - 1);
  describe(`crash recovery: SIGKILL the dispatcher at random moments (part ${part}/${parts})`, {
    timeout: 600_000,
  }, () => {
    // Fewer trials than parts (a replay of one seed): a part without any says so, skipped.
    if (plans.length === 0) it.skip(`no trial of this run falls to part ${part}`, () => {});
    const began = Date.now();
    const outcomes: TrialOutcome[] = [];

    it.concurrent.each(plans)(
      'trial $n (seed $seed) recovers: all archived once, no overlap, no orphan',
      async ({ n, seed }) => {
        const { ws, outcome } = await trial(n, seededRandom(seed));
        outcomes.push(outcome);
        expect(outcome.notes, 'a run that ended before its kill ended cleanly').toEqual([]);
        expect(outcome.repeated, 'no successful agent run was repeated').toBe(0);
        const events = ws.events();
        for (const id of Object.keys(BACKLOG)) {
          const [group, name] = id.split('/') as [string, string];
          expect(
            ws.exists('agent-task/archive', group, name, 'complete.log'),
            `${id} archived`,
          ).toBe(true);
          expect(ws.exists('agent-task', group, name), `${id} not left active`).toBe(false);
          expect(
            events.filter((e) => e.type === 'task.archived' && e.task === id),
            `${id} archived once`,
          ).toHaveLength(1);
          const state = JSON.parse(
            readFileSync(ws.path('agent-task/.switchyard/tasks', `${id}.json`), 'utf8'),
          );
          expect(state.phase).toBe('done');
          expect(state.attempts.filter((a: { status: string }) => a.status !== 'finished')).toEqual(
            [],
          );
        }
        // No duplicate archive folder (a second archive of the same task would need another name).
        for (const group of ['core', 'ui']) {
          const names = readdirSync(ws.path('agent-task/archive', group)).filter(
            (f) => !f.startsWith('work_log_'),
          );
          expect(names.sort()).toEqual(
            Object.keys(BACKLOG)
              .filter((id) => id.startsWith(`${group}/`))
              .map((id) => id.split('/')[1]),
          );
          expect(
            readdirSync(ws.path('agent-task/archive', group)).filter((f) =>
              f.startsWith('work_log_'),
            ).length,
          ).toBeGreaterThan(0);
          expect(existsSync(ws.path('agent-task', group, 'WORK_LOG.md'))).toBe(false);
        }
        const execs = executions(ws.stages());
        expect(
          execs.filter((e) => e.end === undefined),
          'every agent execution ended',
        ).toEqual([]);
        expect(overlaps(execs), 'no task ran two stages at once').toEqual([]);
        const claimGroup = (task: string) =>
          task === 'core/a' || task === 'core/c'
            ? 'src/shared.ts'
            : task === 'ui/e' || task === 'ui/f'
              ? 'ui/e.ts'
              : task;
        expect(
          overlaps(execs, (e) => claimGroup(e.task)),
          'claim-colliding tasks never ran at once',
        ).toEqual([]);
        expect(ws.claims(), 'no claim orphaned').toEqual({});
        expect(agentProcesses(ws.dir), 'no agent process left').toEqual([]);
        // The review loop and the quota failover happened exactly as scripted.
        expect(ws.exists('agent-task/archive/core/d/PLAN-2.md')).toBe(true);
        expect(events.some((e) => e.type === 'target.failover' && e.task === 'ui/g')).toBe(true);
      },
    );

    afterAll(() => {
      outcomes.sort((a, b) => a.trial - b.trial);
      const reattached = outcomes.reduce((sum, o) => sum + o.reattached, 0);
      const repeated = outcomes.reduce((sum, o) => sum + o.repeated, 0);
      const slowest = Math.max(0, ...outcomes.map((o) => o.ms));
      console.log(
        `crash trials (part ${part}/${parts}, seed ${SEED}): ${outcomes.length}/${plans.length} completed; ${reattached} attempts re-attached after a kill; ${repeated} successful agent runs repeated; ${Math.round((Date.now() - began) / 1000)} s wall, slowest trial ${Math.round(slowest / 1000)} s`,
      );
      for (const o of outcomes) {
        console.log(
          `trial ${String(o.trial).padStart(2)}: kills at ${o.kills.join(', ')}; exits ${o.codes.map((c) => c ?? 'KILL').join(' ')}; ${o.executions} agent executions, ${o.reattached} re-attached, ${o.repeated} repeated, ${Math.round(o.ms / 1000)} s${o.notes.length ? `\n  ${o.notes.join('\n  ')}` : ''}`,
        );
      }
    });
  });
}
