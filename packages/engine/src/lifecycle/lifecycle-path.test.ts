import { LIFECYCLE_STAGES, type Phase } from '@switchyard/core/lifecycle';
import { describe, expect, it } from 'vitest';
import { factSets } from './fact-sets.fixture.js';
import type { LifecycleFacts } from './lifecycle-table.js';
import { transition } from './transition.js';

/**
 * The phases a task passes through when every stage succeeds. The facts a stage's effects
 * change move along: a worker pass clears a fixup, a fixup pass marks it done.
 */
function happyPath(start: LifecycleFacts): Phase[] {
  const facts = { ...start };
  const phases: Phase[] = ['worker'];
  let phase: Phase = 'worker';
  while (phase !== 'done' && phases.length < 30) {
    const outcome = phase === 'review' || phase === 'redteam' ? 'approved' : 'passed';
    const next = transition({ phase, planLoop: 1 }, outcome, facts);
    if (!next.ok) throw new Error(next.reason);
    if (next.effects.includes('clear-fixup')) facts.fixedUp = false;
    if (next.effects.includes('mark-fixed-up'))
      Object.assign(facts, { fixedUp: true, minorNotes: false });
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
      // A fixup's change is checked again (between it and the promise): the rest is in order.
      const fixup = path.indexOf('fixup');
      const promise = path.indexOf('promise');
      const again = fixup < 0 ? [] : path.slice(fixup + 1, promise);
      const once = fixup < 0 ? path : [...path.slice(0, fixup + 1), ...path.slice(promise)];
      const order = once.slice(0, -1).map((p) => LIFECYCLE_STAGES.indexOf(p as never));
      expect(order, label).toEqual([...order].sort((a, b) => a - b));
      expect(new Set(order).size, label).toBe(order.length);
      const checks = once.filter((p) => p === 'writeset' || p === 'gate' || p === 'project-gates');
      expect(again, label).toEqual(fixup < 0 ? [] : checks);
      expect(path.includes('selfcheck'), label).toBe(facts.selfcheckRequired);
      expect(path.includes('writeset'), label).toBe(facts.writesChecked);
      expect(path.includes('gate'), label).toBe(facts.hasGate);
      expect(path.includes('project-gates'), label).toBe(facts.hasProjectGates);
      // A local command skips the reviews, the fixup and the apply; any other task is reviewed.
      expect(path.includes('review'), label).toBe(!facts.localRunner);
      expect(path.includes('redteam'), label).toBe(!facts.localRunner && facts.redTeam);
      expect(path.includes('fixup'), label).toBe(!facts.localRunner && facts.minorNotes);
      expect(path.includes('apply'), label).toBe(facts.isolated);
      // Nothing lands before the completion promise.
      expect(promise, label).toBeGreaterThan(0);
      expect(promise, label).toBeLessThan(Math.max(path.indexOf('apply'), path.indexOf('archive')));
    }
  });
});
