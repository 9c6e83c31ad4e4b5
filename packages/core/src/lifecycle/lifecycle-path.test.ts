import { describe, expect, it } from 'vitest';
import { FACTS, LIFECYCLE_STAGES, type LifecycleFacts, type Phase } from './lifecycle-table.js';
import { transition } from './transition.js';

const factSets: LifecycleFacts[] = FACTS.reduce<LifecycleFacts[]>(
  (sets, fact) =>
    sets.flatMap((s) => [
      { ...s, [fact]: false },
      { ...s, [fact]: true },
    ]),
  [{} as LifecycleFacts],
);

/** The phases a task passes through when every stage succeeds. */
function happyPath(facts: LifecycleFacts): Phase[] {
  const phases: Phase[] = ['worker'];
  let phase: Phase = 'worker';
  while (phase !== 'done' && phases.length < 20) {
    const outcome = phase === 'review' || phase === 'redteam' ? 'approved' : 'passed';
    const next = transition({ phase, planLoop: 1 }, outcome, facts);
    if (!next.ok) throw new Error(next.reason);
    phase = next.state.phase;
    phases.push(phase);
  }
  return phases;
}

describe('the path of a task through passing stages', () => {
  it('visits stages in lifecycle order, each once, exactly those its facts turn on', () => {
    for (const facts of factSets) {
      const path = happyPath(facts);
      const label = JSON.stringify(facts);
      expect(path.at(-1), label).toBe('done');
      const order = path.slice(0, -1).map((p) => LIFECYCLE_STAGES.indexOf(p as never));
      expect(order, label).toEqual([...order].sort((a, b) => a - b));
      expect(path.includes('selfcheck'), label).toBe(facts.selfcheckRequired);
      expect(path.includes('writeset'), label).toBe(facts.isolated);
      expect(path.includes('gate'), label).toBe(facts.hasGate);
      expect(path.includes('project-gates'), label).toBe(facts.hasProjectGates);
      // A local command skips the reviews and the apply; any other task is reviewed.
      expect(path.includes('review'), label).toBe(!facts.localRunner);
      expect(path.includes('redteam'), label).toBe(!facts.localRunner && facts.redTeam);
      expect(path.includes('apply'), label).toBe(!facts.localRunner && facts.isolated);
    }
  });
});
