import { describe, expect, it } from 'vitest';
import { type StageInput, stageTargets } from './stage-targets.js';

const agents = new Map([
  ['a', 'claude-code'],
  ['b', 'claude-code'],
  ['cx', 'codex'],
]);

function stages(over: Partial<StageInput>, review = ['cx', 'a']) {
  return stageTargets({
    route: 'cloud-G01',
    pin: undefined,
    withName: undefined,
    redTeam: false,
    agents,
    select: (stage) => ({ candidates: stage === 'worker' ? ['a', 'cx', 'b'] : review }),
    stages: ['worker', 'review'],
    planFile: '/w/agent-task/g/t/PLAN.md',
    ...over,
  });
}

describe('the dry run’s stage targets', () => {
  it('shows the worker `with <agent>` chose and the review that is not it', () => {
    const { stages: s, problems } = stages({ withName: 'codex' });
    expect(problems).toEqual([]);
    expect(s.worker).toEqual({ selected: 'cx', selected_by: 'with', candidates: ['cx', 'a', 'b'] });
    expect(s.review).toEqual({
      selected: 'a',
      selected_by: 'route',
      candidates: ['a'],
      not_worker: 'cx',
    });
  });

  it('a pin chooses the worker only; `with` an agent the route lacks is an error of the task', () => {
    expect(stages({ pin: 'b', withName: 'codex' }).stages.review?.selected).toBe('cx');
    const { problems } = stages({ withName: 'gemini-cli' });
    expect(problems).toMatchObject([
      {
        code: 'SY_USAGE',
        message: 'with "gemini-cli" is neither a target id nor an agent of the catalog',
      },
    ]);
  });

  it('reports a red-team review no other agent family can do as an error, before anything is paid', () => {
    const feasible = stages({ redTeam: true });
    expect(feasible.stages.redteam).toMatchObject({ selected: 'cx', candidates: ['cx'] });
    expect(feasible.problems).toEqual([]);
    // Every review candidate is the worker's own family (claude-code).
    const infeasible = stages({ redTeam: true }, ['a', 'b']);
    expect(infeasible.stages.redteam).toMatchObject({ selected: null, selected_by: 'none' });
    expect(infeasible.problems).toMatchObject([
      {
        code: 'SY_PLAN_INVALID',
        severity: 'error',
        file: '/w/agent-task/g/t/PLAN.md',
        message: expect.stringContaining(
          "the red-team review needs a review candidate of another agent family than the worker's (a: claude-code), and route cloud-G01 has none",
        ),
      },
    ]);
    // A worker on codex makes the same route feasible.
    expect(stages({ redTeam: true, withName: 'codex' }, ['a', 'b']).problems).toEqual([]);
  });
});
