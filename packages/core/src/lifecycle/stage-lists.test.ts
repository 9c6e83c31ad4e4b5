import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ATTEMPT_ROLES,
  BUDGET_STAGES,
  backToWorkerOutcome,
  CORRECTION_SOURCES,
  DECISION_KEYS,
  DECISION_STAGES,
  FAILURE_COUNTERS,
  LIFECYCLE,
  LIFECYCLE_STAGES,
  type StageRow,
  WORK_LOG_ROLES,
  WORKTREE_STAGES,
} from './lifecycle-table.js';

/**
 * The lifecycle table is the only stage list. Every list of stages the other modules use is
 * derived from a column of it, so a row added (or a column changed) reaches all of them; a
 * list kept by hand beside it drifts (the stages that need a worktree once left out the
 * project gates). This scan fails on a source file that spells a list of stage names (an
 * array or set of two or more, or a chain of comparisons with them) outside the table.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const NAMES = [...LIFECYCLE_STAGES, 'done'].map((s) => s.replace('-', '\\-')).join('|');
const NAME = `'(?:${NAMES})'`;
/** `['worker', 'review']`, `new Set(['apply', 'archive', 'done'])`. */
const LIST = new RegExp(`\\[\\s*${NAME}\\s*(?:,\\s*${NAME}\\s*)+,?\\s*\\]`);
/** `role === 'review' || role === 'redteam'`. */
const CHAIN = new RegExp(`===\\s*${NAME}\\s*\\|\\|\\s*[\\w.]+\\s*===\\s*${NAME}`);

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
      if (rel === 'packages/core/src/lifecycle/lifecycle-table.ts') continue;
      const text = readFileSync(file, 'utf8');
      if (LIST.test(text) || CHAIN.test(text)) found.push(rel);
    }
  }
  return found.sort();
}

describe('the lifecycle table as the only stage list', () => {
  it('derives every stage list from a column of the table', () => {
    const where = (test: (row: StageRow) => boolean) =>
      LIFECYCLE_STAGES.filter((s) => test(LIFECYCLE[s]));
    const values = (value: (row: StageRow) => string | undefined) => [
      ...new Set(LIFECYCLE_STAGES.flatMap((s) => value(LIFECYCLE[s]) ?? [])),
    ];
    expect([...ATTEMPT_ROLES]).toEqual(where((r) => r.kind === 'agent'));
    expect([...BUDGET_STAGES]).toEqual(where((r) => r.budget));
    expect([...FAILURE_COUNTERS]).toEqual(where((r) => r.failureCounter));
    expect([...WORK_LOG_ROLES]).toEqual(where((r) => r.workLog));
    expect([...CORRECTION_SOURCES]).toEqual(where((r) => r.correctionSource));
    expect([...WORKTREE_STAGES]).toEqual(where((r) => r.worktree));
    expect([...DECISION_STAGES]).toEqual(values((r) => r.decision));
    expect([...DECISION_KEYS]).toEqual(values((r) => r.decisionKey));
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
    for (const s of checks) expect(CORRECTION_SOURCES).toContain(s);
  });

  it('finds no stage list kept by hand beside the table', () => {
    const found = handKeptLists();
    const unexplained = found.filter((f) => !(f in LEFT));
    const stale = Object.keys(LEFT).filter((f) => !found.includes(f));
    expect({ unexplained, stale }).toEqual({ unexplained: [], stale: [] });
  });
});
