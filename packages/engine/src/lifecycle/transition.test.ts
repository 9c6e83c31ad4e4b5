import {
  FINAL_PHASE,
  INITIAL_PHASE,
  LIFECYCLE_STAGES,
  PHASES,
  type Phase,
} from '@switchyard/core/lifecycle';
import { describe, expect, it } from 'vitest';
import { factSets } from './fact-sets.fixture.js';
import {
  BUDGET_STAGES,
  EFFECTS,
  FACTS,
  LIFECYCLE,
  type LifecycleFacts,
  OUTCOMES,
  takesAgentSlot,
} from './lifecycle-table.js';
import { transition } from './transition.js';

/** Where a task in plan loop 1 goes from `phase` on `outcome`, or why it cannot. */
function next(phase: Phase, outcome: Parameters<typeof transition>[1], facts: LifecycleFacts) {
  const t = transition({ phase, planLoop: 1 }, outcome, facts);
  return t.ok ? t.state.phase : t.reason;
}

describe('transition (generated from the lifecycle table)', () => {
  const cases = PHASES.flatMap((phase) =>
    OUTCOMES.flatMap((outcome) => factSets.map((facts) => ({ phase, outcome, facts }))),
  );

  it(`covers every phase × outcome × facts (${cases.length} cases)`, () => {
    expect(cases.length).toBe(PHASES.length * OUTCOMES.length * 2 ** FACTS.length);
    // One assertion at the end: tens of thousands of `expect` calls time out on a loaded machine.
    const wrong: string[] = [];
    for (const { phase, outcome, facts } of cases) {
      const result = transition({ phase, planLoop: 3 }, outcome, facts);
      const row = phase === FINAL_PHASE ? undefined : LIFECYCLE[phase].outcomes[outcome];
      const problem = (() => {
        if (!row) return result.ok ? 'moved on an outcome the row does not declare' : undefined;
        if (!result.ok) return `refused: ${result.reason}`;
        // The next phase is the first declared branch whose fact holds.
        const branch = row.next.find((b) => b.if === undefined || facts[b.if]);
        if (!PHASES.includes(result.state.phase) || result.state.phase !== branch?.to)
          return `went to ${result.state.phase}, not ${branch?.to}`;
        // The effects are exactly the row's, each a declared effect.
        if (JSON.stringify(result.effects) !== JSON.stringify(row.effects))
          return `effects ${result.effects.join(',')}`;
        if (result.effects.some((e) => !EFFECTS.includes(e))) return 'an undeclared effect';
        // Only a new plan loop changes the loop number, by one.
        if (result.state.planLoop !== (row.effects.includes('start-plan-loop') ? 4 : 3))
          return `plan loop ${result.state.planLoop}`;
        return undefined;
      })();
      if (problem) wrong.push(`${phase} × ${outcome} × ${JSON.stringify(facts)}: ${problem}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('declares only valid targets, and every outcome row ends with an unconditional branch', () => {
    for (const stage of LIFECYCLE_STAGES) {
      for (const [outcome, row] of Object.entries(LIFECYCLE[stage].outcomes)) {
        expect(OUTCOMES, `${stage}/${outcome}`).toContain(outcome);
        expect(row!.next.at(-1)?.if, `${stage}/${outcome}`).toBeUndefined();
        for (const b of row!.next) expect(PHASES).toContain(b.to);
      }
    }
  });

  it('reaches every stage from the initial phase and done from every stage', () => {
    const edges = (p: Phase): Phase[] =>
      p === FINAL_PHASE
        ? []
        : Object.values(LIFECYCLE[p].outcomes).flatMap((r) => r!.next.map((b) => b.to));
    const reach = (from: Phase) => {
      const seen = new Set<Phase>([from]);
      const queue = [from];
      while (queue.length > 0)
        for (const n of edges(queue.shift()!))
          if (!seen.has(n)) {
            seen.add(n);
            queue.push(n);
          }
      return seen;
    };
    expect([...reach(INITIAL_PHASE)].sort()).toEqual([...PHASES].sort());
    for (const stage of LIFECYCLE_STAGES) expect(reach(stage).has(FINAL_PHASE), stage).toBe(true);
  });

  it('a local-runner task skips the review: worker (and its gate) lead to the promise, then the archive', () => {
    const local = {
      selfcheckRequired: false,
      hasGate: false,
      localRunner: true,
      isolated: false,
      writesChecked: false,
      hasProjectGates: false,
      redTeam: false,
      minorNotes: false,
      fixedUp: false,
    };
    const worker = transition({ phase: 'worker', planLoop: 1 }, 'passed', local);
    expect(worker.ok && worker.state.phase).toBe('promise');
    const gated = transition({ phase: 'worker', planLoop: 1 }, 'passed', {
      ...local,
      hasGate: true,
    });
    expect(gated.ok && gated.state.phase).toBe('gate');
    const gate = transition({ phase: 'gate', planLoop: 1 }, 'passed', { ...local, hasGate: true });
    expect(gate.ok && gate.state.phase).toBe('promise');
    const promise = transition({ phase: 'promise', planLoop: 1 }, 'passed', local);
    expect(promise.ok && promise.state.phase).toBe('archive');
    const agent = transition({ phase: 'gate', planLoop: 1 }, 'passed', {
      ...local,
      localRunner: false,
    });
    expect(agent.ok && agent.state.phase).toBe('review');
  });

  it('a done task refuses every outcome', () => {
    for (const outcome of OUTCOMES) {
      expect(transition({ phase: 'done', planLoop: 1 }, outcome, factSets[0]!).ok).toBe(false);
    }
  });

  it('derives the budgets and agent slots from the rows', () => {
    const budgeted = ['worker', 'selfcheck', 'gate', 'project-gates', 'review', 'redteam', 'fixup'];
    expect([...BUDGET_STAGES]).toEqual(budgeted);
    // Gates and the archive never hold an agent slot.
    expect(PHASES.filter(takesAgentSlot)).toEqual([
      'worker',
      'selfcheck',
      'review',
      'redteam',
      'fixup',
    ]);
  });

  it('a minor-only review archives without another worker round or plan loop', () => {
    const facts = {
      selfcheckRequired: true,
      hasGate: true,
      isolated: false,
      writesChecked: true,
      localRunner: false,
      hasProjectGates: false,
      redTeam: false,
      minorNotes: false,
      fixedUp: false,
    };
    expect(transition({ phase: 'review', planLoop: 2 }, 'approved-with-notes', facts)).toEqual({
      ok: true,
      state: { phase: 'promise', planLoop: 2 },
      effects: ['reset-failures', 'clear-failover', 'clear-backoff', 'mark-verified'],
    });
    // Only the review stage may accept notes.
    for (const phase of ['worker', 'selfcheck', 'gate', 'archive'] as const)
      expect(transition({ phase, planLoop: 1 }, 'approved-with-notes', facts).ok).toBe(false);
  });
});

describe('worktree isolation rows', () => {
  const facts = (isolated: boolean, hasGate = true): LifecycleFacts => ({
    selfcheckRequired: false,
    hasGate,
    isolated,
    writesChecked: isolated,
    localRunner: false,
    hasProjectGates: false,
    redTeam: false,
    minorNotes: false,
    fixedUp: false,
  });

  it('checks the write set after the worker or self-check when its writes are checked', () => {
    expect(next('worker', 'passed', facts(true))).toBe('writeset');
    expect(next('worker', 'passed', facts(false))).toBe('gate');
    expect(next('selfcheck', 'passed', facts(true))).toBe('writeset');
    expect(next('selfcheck', 'passed', facts(false, false))).toBe('review');
    expect(next('writeset', 'passed', facts(true))).toBe('gate');
    expect(next('writeset', 'passed', facts(true, false))).toBe('review');
    const violated = transition(
      { phase: 'writeset', planLoop: 1 },
      'writeset-violated',
      facts(true),
    );
    expect(violated).toMatchObject({
      ok: true,
      state: { phase: 'worker' },
      effects: ['count-failure', 'record-correction'],
    });
  });

  it('applies after an approved review and a held promise when isolated; a failed apply goes back to the worker; waiting stays', () => {
    expect(next('review', 'approved', facts(true))).toBe('promise');
    expect(next('promise', 'passed', facts(true))).toBe('apply');
    expect(next('promise', 'passed', facts(false))).toBe('archive');
    expect(next('promise', 'promise-unmet', facts(true))).toBe('worker');
    expect(next('apply', 'passed', facts(true))).toBe('archive');
    expect(next('apply', 'apply-failed', facts(true))).toBe('worker');
    expect(next('apply', 'apply-waiting', facts(true))).toBe('apply');
    expect(transition({ phase: 'apply', planLoop: 2 }, 'apply-failed', facts(true))).toMatchObject({
      effects: ['count-failure', 'record-correction'],
      state: { planLoop: 2 },
    });
  });

  it('neither stage takes an agent slot; both judge the agent’s work, so both write work-log rows', () => {
    for (const stage of ['writeset', 'apply'] as const) {
      expect(LIFECYCLE[stage].agentSlot).toBe(false);
      expect(LIFECYCLE[stage].workLog).toBe(true);
    }
  });

  it('runs the project gates after the definition of done, and only when the config has gates', () => {
    const all = {
      selfcheckRequired: false,
      hasGate: true,
      hasProjectGates: true,
      redTeam: false,
      isolated: false,
      writesChecked: false,
      localRunner: false,
      minorNotes: false,
      fixedUp: false,
    };
    expect(next('worker', 'passed', all)).toBe('gate');
    expect(next('gate', 'passed', all)).toBe('project-gates');
    expect(next('worker', 'passed', { ...all, hasGate: false })).toBe('project-gates');
    expect(next('selfcheck', 'passed', { ...all, hasGate: false })).toBe('project-gates');
    expect(next('gate', 'passed', { ...all, hasProjectGates: false })).toBe('review');
    expect(next('project-gates', 'passed', all)).toBe('review');
    expect(next('project-gates', 'gate-failed', all)).toBe('worker');
    expect(LIFECYCLE['project-gates'].outcomes['gate-failed']?.effects).toEqual([
      'count-failure',
      'record-correction',
    ]);
  });
});

describe('red-team review rows', () => {
  const facts = (redTeam: boolean, isolated = false): LifecycleFacts => ({
    selfcheckRequired: false,
    hasGate: true,
    isolated,
    writesChecked: true,
    localRunner: false,
    hasProjectGates: false,
    redTeam,
    minorNotes: false,
    fixedUp: false,
  });

  it('runs the red-team review only after the normal review approved, and only when asked', () => {
    expect(next('review', 'approved', facts(true))).toBe('redteam');
    expect(next('review', 'approved-with-notes', facts(true))).toBe('redteam');
    expect(next('review', 'approved', facts(false))).toBe('promise');
    // A normal review's CHANGES_REQUESTED goes back to the worker, red-team or not.
    expect(next('review', 'changes-requested', facts(true))).toBe('worker');
  });

  it('an approving red-team review goes on to the completion promise before anything lands', () => {
    expect(next('redteam', 'approved', facts(true))).toBe('promise');
    expect(next('redteam', 'approved', facts(true, true))).toBe('promise');
    expect(next('redteam', 'approved-with-notes', facts(true))).toBe('promise');
  });

  it('a red-team CHANGES_REQUESTED starts plan loop N+1 like a normal review; a failure stays', () => {
    expect(transition({ phase: 'redteam', planLoop: 2 }, 'changes-requested', facts(true))).toEqual(
      {
        ok: true,
        state: { phase: 'worker', planLoop: 3 },
        effects: ['reset-failures', 'clear-failover', 'clear-backoff', 'start-plan-loop'],
      },
    );
    expect(transition({ phase: 'redteam', planLoop: 2 }, 'failed', facts(true))).toEqual({
      ok: true,
      state: { phase: 'redteam', planLoop: 2 },
      effects: ['count-failure'],
    });
    expect(next('redteam', 'passed', facts(true))).toMatch(/declares no outcome/);
  });

  it('is an agent stage deciding from the review route, with its own budget and work-log rows', () => {
    expect(LIFECYCLE.redteam).toMatchObject({
      kind: 'agent',
      decision: 'review',
      budget: true,
      agentSlot: true,
      workLog: true,
      failover: true,
    });
  });
});

describe('fixup and completion-promise rows', () => {
  const base: LifecycleFacts = {
    selfcheckRequired: false,
    hasGate: true,
    isolated: true,
    writesChecked: true,
    localRunner: false,
    hasProjectGates: true,
    redTeam: false,
    minorNotes: false,
    fixedUp: false,
  };

  it('MINOR-only findings with a fixup target go to the fixup; without one they stay notes', () => {
    expect(next('review', 'approved-with-notes', { ...base, minorNotes: true })).toBe('fixup');
    expect(next('review', 'approved', { ...base, minorNotes: true })).toBe('fixup');
    expect(next('review', 'approved-with-notes', base)).toBe('promise');
    // After the red-team review, when both approved.
    expect(next('review', 'approved', { ...base, redTeam: true, minorNotes: true })).toBe(
      'redteam',
    );
    expect(next('redteam', 'approved', { ...base, redTeam: true, minorNotes: true })).toBe('fixup');
  });

  it("a fixup's change is checked again, then goes to the promise without another review", () => {
    const fixed = { ...base, fixedUp: true };
    expect(next('fixup', 'passed', fixed)).toBe('writeset');
    expect(next('writeset', 'passed', fixed)).toBe('gate');
    expect(next('gate', 'passed', fixed)).toBe('project-gates');
    expect(next('project-gates', 'passed', fixed)).toBe('promise');
    expect(next('gate', 'passed', { ...fixed, hasProjectGates: false })).toBe('promise');
    // A failed check after a fixup goes back to the worker, like any change.
    expect(next('gate', 'gate-failed', fixed)).toBe('worker');
    expect(next('fixup', 'failed', fixed)).toBe('fixup');
    expect(LIFECYCLE.fixup.outcomes.passed?.effects).toContain('mark-fixed-up');
    // A worker round clears the fixup, so its work is reviewed again.
    expect(LIFECYCLE.worker.outcomes.passed?.effects).toContain('clear-fixup');
  });

  it('marks the work each writing stage changes and what each check verified', () => {
    for (const stage of ['worker', 'selfcheck', 'fixup'] as const)
      expect(LIFECYCLE[stage].outcomes.passed?.effects, stage).toContain('mark-work');
    for (const stage of ['writeset', 'gate', 'project-gates', 'selfcheck'] as const)
      expect(LIFECYCLE[stage].outcomes.passed?.effects, stage).toContain('mark-verified');
    for (const stage of ['review', 'redteam'] as const) {
      expect(LIFECYCLE[stage].outcomes.approved?.effects, stage).toContain('mark-verified');
      expect(LIFECYCLE[stage].outcomes['approved-with-notes']?.effects, stage).toContain(
        'mark-verified',
      );
    }
    expect(LIFECYCLE.promise).toMatchObject({ kind: 'check', agentSlot: false, workLog: false });
  });
});
