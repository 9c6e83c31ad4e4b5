import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIFECYCLE_STAGES, reviewFileOf, STAGE_CONTRACT } from '@switchyard/core/lifecycle';
import { describe, expect, it } from 'vitest';
import {
  BUDGET_STAGES,
  backToWorkerOutcome,
  LIFECYCLE,
  PLAN_LOOP_RESETS,
  parksOnQuota,
  type StageRow,
  WORKTREE_STAGES,
} from './lifecycle-table.js';

/**
 * The lifecycle table is the only stage list. Its stages and the columns the persisted formats
 * derive from are core's vocabulary (`STAGE_CONTRACT`, which its own tests check); every row
 * here is built from its stage's contract row. Every list of stages the other modules use is
 * derived from a column of the two, so a row added (or a column changed) reaches all of them; a
 * list kept by hand beside it drifts (the stages that need a worktree once left out the
 * project gates). This scan fails on a source file that spells a list of stage names outside
 * the table: an array or set of two or more, a chain of comparisons with them, counters reset
 * one stage per statement, a role-by-role chain of `?:`, a fact of every stage but one
 * (`budget !== 'selfcheck'`), or a review file name built by hand.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const NAMES = [...LIFECYCLE_STAGES, 'done'].map((s) => s.replace('-', '\\-')).join('|');
const NAME = `'(?:${NAMES})'`;
/** `['worker', 'review']`, `new Set(['apply', 'archive', 'done'])`. */
const LIST = new RegExp(`\\[\\s*${NAME}\\s*(?:,\\s*${NAME}\\s*)+,?\\s*\\]`);
/** `role === 'review' || role === 'redteam'`. */
const CHAIN = new RegExp(`===\\s*${NAME}\\s*\\|\\|\\s*[\\w.]+\\s*===\\s*${NAME}`);
/** `state.failures.worker = 0; state.failures.gate = 0;` (the plan loop's resets, once). */
const COUNTER = `failures(?:\\.\\w+|\\[\\s*${NAME}\\s*\\])\\s*=\\s*0;`;
const RESETS = new RegExp(`${COUNTER}\\s*[\\w.]*${COUNTER}`);
/** `role === 'review' ? a : role === 'redteam' ? b : c` (the review file per role, once). */
const TERNARY = new RegExp(`===\\s*${NAME}\\s*\\?[^:;]+?:\\s*[\\w.]+\\s*===\\s*${NAME}\\s*\\?`);
/** `const movable = budget !== 'selfcheck';` (the stages that park on a quota reset, once). */
const ALL_BUT_ONE = new RegExp(`(?:const|let)\\s+\\w+\\s*=\\s*[\\w.]+\\s*!==\\s*${NAME}\\s*;`);
/** `` `CODE_REVIEW-${loop}.red-team.md` ``: the table's `reviewFile` column names them. */
const REVIEW_FILE = /CODE_REVIEW-\$\{[^}]*\}[^`'\n]*\.md/;
const FORMS = [LIST, CHAIN, RESETS, TERNARY, ALL_BUT_ONE, REVIEW_FILE];

/** Lists that stay, and why (an entry that no longer matches fails, so the list only shrinks). */
const LEFT: Record<string, string> = {
  'packages/engine/src/escalation/build-bundle.ts':
    "the checks that run the task's definition of done (the gate; the apply runs it on the source): a fact of those stages' handlers, not of the table",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sources(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

function handKeptLists(): string[] {
  const found: string[] = [];
  for (const pkg of readdirSync(join(root, 'packages'))) {
    let files: string[];
    try {
      files = sources(join(root, 'packages', pkg, 'src'));
    } catch {
      continue;
    }
    for (const file of files) {
      const rel = relative(root, file);
      const text = readFileSync(file, 'utf8');
      if (FORMS.some((form) => form.test(text))) found.push(rel);
    }
  }
  return found.sort();
}

describe('the lifecycle table as the only stage list', () => {
  it('has a row for every stage of the vocabulary, built from its contract row', () => {
    expect(Object.keys(LIFECYCLE).sort()).toEqual([...LIFECYCLE_STAGES].sort());
    for (const stage of LIFECYCLE_STAGES)
      expect([stage, LIFECYCLE[stage]]).toEqual([
        stage,
        expect.objectContaining(STAGE_CONTRACT[stage]),
      ]);
  });

  it('derives every stage list of the engine from a column of the table', () => {
    const where = (test: (row: StageRow) => boolean) =>
      LIFECYCLE_STAGES.filter((s) => test(LIFECYCLE[s]));
    expect([...BUDGET_STAGES]).toEqual(where((r) => r.budget));
    expect([...WORKTREE_STAGES]).toEqual(where((r) => r.worktree));
    expect([...PLAN_LOOP_RESETS]).toEqual(where((r) => r.planLoopReset));
  });

  it('starts over at a new plan loop only the counters of stages with a budget of their own', () => {
    // The checks without one (write set, promise, apply) count every failure until they pass,
    // across plan loops; the reviews and the fixup reset their own counter when they end.
    expect([...PLAN_LOOP_RESETS]).toEqual(['worker', 'selfcheck', 'gate', 'project-gates']);
    for (const stage of PLAN_LOOP_RESETS) {
      expect([stage, LIFECYCLE[stage].budget, LIFECYCLE[stage].failureCounter]).toEqual([
        stage,
        true,
        true,
      ]);
    }
  });

  it('parks on a quota reset only the agent stages that own their decision', () => {
    // Parking moves the stage's decision to the candidate whose reset comes first: the
    // self-check runs on the worker's and resumes its context, so it is charged instead.
    const parks = LIFECYCLE_STAGES.filter(parksOnQuota);
    expect(parks).toEqual(['worker', 'review', 'redteam', 'fixup']);
    for (const stage of parks) expect(LIFECYCLE[stage].decisionKey).toBe(stage);
    // A stage that fails over may park (the fixup parks on its one target without failing over).
    for (const stage of LIFECYCLE_STAGES)
      if (LIFECYCLE[stage].failover) expect([stage, parksOnQuota(stage)]).toEqual([stage, true]);
  });

  it('names a review file of its own for every stage that writes a review', () => {
    const reviews = LIFECYCLE_STAGES.filter((s) => LIFECYCLE[s].prompt === 'review');
    const files = LIFECYCLE_STAGES.flatMap((s) => reviewFileOf(s, 2) ?? []);
    expect(files).toEqual(reviews.map((s) => reviewFileOf(s, 2)));
    expect(files).toEqual(['CODE_REVIEW-2.md', 'CODE_REVIEW-2.red-team.md']);
    expect(reviewFileOf('worker', 2)).toBeUndefined();
    expect(reviewFileOf('done', 2)).toBeUndefined();
  });

  it('gives every agent stage a decision key and a prompt, and no other stage either', () => {
    for (const stage of LIFECYCLE_STAGES) {
      const row = LIFECYCLE[stage];
      const agent = row.kind === 'agent';
      expect([stage, row.decisionKey !== undefined]).toEqual([stage, agent]);
      expect([stage, row.prompt !== undefined]).toEqual([stage, agent]);
    }
  });

  it('runs every stage that judges or changes the work in its worktree, project gates too', () => {
    // The drift this table replaced: a hand-kept list of these left out the project gates.
    expect(WORKTREE_STAGES).toContain('project-gates');
    for (const stage of LIFECYCLE_STAGES) {
      const row = LIFECYCLE[stage];
      if (row.kind === 'agent' || row.kind === 'command')
        expect([stage, row.worktree]).toEqual([stage, true]);
    }
    // Every stage that counts failures has a counter; the archive neither.
    expect(BUDGET_STAGES.every((s) => LIFECYCLE[s].failureCounter)).toBe(true);
    expect(LIFECYCLE.archive.failureCounter).toBe(false);
  });

  it('sends every check of the work back to the worker with a correction by its own outcome', () => {
    const checks = LIFECYCLE_STAGES.filter((s) =>
      ['command', 'git', 'check'].includes(LIFECYCLE[s].kind),
    );
    expect(Object.fromEntries(checks.map((s) => [s, backToWorkerOutcome(s)]))).toEqual({
      writeset: 'writeset-violated',
      gate: 'gate-failed',
      'project-gates': 'gate-failed',
      promise: 'promise-unmet',
      apply: 'apply-failed',
    });
    // Each is a correction source: the worker's next prompt names what failed.
    for (const s of checks) expect([s, LIFECYCLE[s].correctionSource]).toEqual([s, true]);
  });

  it('recognises the hand-kept forms the table replaced', () => {
    const old = [
      "const FAILOVER = new Set(['worker', 'review']);",
      "return role === 'review' || role === 'redteam';",
      "state.failures.worker = 0;\n      state.failures['project-gates'] = 0;",
      "record.role === 'review'\n ? reviewFileName(n)\n : record.role === 'redteam'\n ? x(n)\n : y(n)",
      "const movable = budget !== 'selfcheck';",
      'return `CODE_REVIEW-${loop}.red-team.md`;',
    ];
    expect(old.map((text) => FORMS.filter((form) => form.test(text)).length)).toEqual(
      old.map(() => 1),
    );
    // What the derived code says instead is not one of them.
    const derived = [
      'for (const stage of PLAN_LOOP_RESETS) state.failures[stage] = 0;',
      'artifact: reviewFileOf(record.role, record.planLoop) ?? planFileName(record.planLoop),',
      'if (row.quotaPark && waitForQuotaReset(ctx, rt, budget)) return;',
      "const archived = rt.state.phase === 'done';",
    ];
    expect(derived.filter((text) => FORMS.some((form) => form.test(text)))).toEqual([]);
  });

  it('finds no stage list kept by hand beside the table', () => {
    const found = handKeptLists();
    const unexplained = found.filter((f) => !(f in LEFT));
    const stale = Object.keys(LEFT).filter((f) => !found.includes(f));
    expect({ unexplained, stale }).toEqual({ unexplained: [], stale: [] });
  });
});
