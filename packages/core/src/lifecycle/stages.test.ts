import { describe, expect, it } from 'vitest';
import {
  ATTEMPT_ROLES,
  CORRECTION_SOURCES,
  DECISION_KEYS,
  DECISION_STAGES,
  FAILURE_COUNTERS,
  FINAL_PHASE,
  INITIAL_PHASE,
  LIFECYCLE_STAGES,
  PHASES,
  reviewFileOf,
  STAGE_CONTRACT,
  type StageContractRow,
} from './stages.js';

const where = (test: (row: StageContractRow) => boolean) =>
  LIFECYCLE_STAGES.filter((s) => test(STAGE_CONTRACT[s]));
const values = (value: (row: StageContractRow) => string | undefined) => [
  ...new Set(LIFECYCLE_STAGES.flatMap((s) => value(STAGE_CONTRACT[s]) ?? [])),
];

describe("the lifecycle's vocabulary", () => {
  it('lists the stages in lifecycle order, then done', () => {
    expect([...PHASES]).toEqual([
      'worker',
      'selfcheck',
      'writeset',
      'gate',
      'project-gates',
      'review',
      'redteam',
      'fixup',
      'promise',
      'apply',
      'archive',
      'done',
    ]);
    expect([INITIAL_PHASE, FINAL_PHASE]).toEqual([PHASES[0], PHASES.at(-1)]);
  });

  it('derives every list the persisted formats use from a column of the rows', () => {
    expect([...ATTEMPT_ROLES]).toEqual(where((r) => r.kind === 'agent'));
    expect([...FAILURE_COUNTERS]).toEqual(where((r) => r.failureCounter));
    expect([...CORRECTION_SOURCES]).toEqual(where((r) => r.correctionSource));
    expect([...DECISION_STAGES]).toEqual(values((r) => r.decision));
    expect([...DECISION_KEYS]).toEqual(values((r) => r.decisionKey));
  });

  it('names the roles, decisions and work-log stages the formats have always had', () => {
    expect([...ATTEMPT_ROLES]).toEqual(['worker', 'selfcheck', 'review', 'redteam', 'fixup']);
    expect([...DECISION_STAGES]).toEqual(['worker', 'review']);
    expect([...DECISION_KEYS]).toEqual(['worker', 'review', 'redteam', 'fixup']);
    expect(where((r) => r.workLog)).toEqual([
      'worker',
      'selfcheck',
      'writeset',
      'gate',
      'project-gates',
      'review',
      'redteam',
      'fixup',
      'apply',
    ]);
    // A catalog decision stage runs on its own decision.
    for (const s of DECISION_STAGES) expect(STAGE_CONTRACT[s].decision).toBe(s);
  });

  it('gives every agent stage a decision key, and no other stage one', () => {
    for (const stage of LIFECYCLE_STAGES) {
      const row: StageContractRow = STAGE_CONTRACT[stage];
      expect([stage, row.decisionKey !== undefined]).toEqual([stage, row.kind === 'agent']);
    }
  });

  it('names the review file of each review stage, and none of any other phase', () => {
    expect(PHASES.flatMap((s) => reviewFileOf(s, 2) ?? [])).toEqual([
      'CODE_REVIEW-2.md',
      'CODE_REVIEW-2.red-team.md',
    ]);
    expect(reviewFileOf('review', 1)).toBe('CODE_REVIEW-1.md');
    expect(reviewFileOf(FINAL_PHASE, 2)).toBeUndefined();
  });
});
