import { describe, expect, it } from 'vitest';
import {
  ATTEMPT_ROLES,
  BUDGET_STAGES,
  DECISION_STAGES,
  EFFECTS,
  FACTS,
  FINAL_PHASE,
  INITIAL_PHASE,
  LIFECYCLE,
  LIFECYCLE_STAGES,
  type LifecycleFacts,
  OUTCOMES,
  PHASES,
  type Phase,
  takesAgentSlot,
  WORK_LOG_ROLES,
} from './lifecycle-table.js';
import { transition } from './transition.js';

/** Every combination of the table's facts. */
const factSets: LifecycleFacts[] = FACTS.reduce<LifecycleFacts[]>(
  (sets, fact) =>
    sets.flatMap((s) => [
      { ...s, [fact]: false },
      { ...s, [fact]: true },
    ]),
  [{} as LifecycleFacts],
);

describe('transition (generated from the lifecycle table)', () => {
  const cases = PHASES.flatMap((phase) =>
    OUTCOMES.flatMap((outcome) => factSets.map((facts) => ({ phase, outcome, facts }))),
  );

  it(`covers every phase × outcome × facts (${cases.length} cases)`, () => {
    expect(cases.length).toBe(PHASES.length * OUTCOMES.length * 2 ** FACTS.length);
    for (const { phase, outcome, facts } of cases) {
      const result = transition({ phase, planLoop: 3 }, outcome, facts);
      const row = phase === FINAL_PHASE ? undefined : LIFECYCLE[phase].outcomes[outcome];
      const label = `${phase} × ${outcome} × ${JSON.stringify(facts)}`;
      if (!row) {
        expect(result.ok, label).toBe(false);
        continue;
      }
      expect(result.ok, label).toBe(true);
      if (!result.ok) continue;
      // The next phase is a valid phase and the first declared branch whose fact holds.
      expect(PHASES, label).toContain(result.state.phase);
      const branch = row.next.find((b) => b.if === undefined || facts[b.if]);
      expect(result.state.phase, label).toBe(branch?.to);
      // The effects are exactly the row's, each a declared effect.
      expect(result.effects, label).toEqual(row.effects);
      for (const effect of result.effects) expect(EFFECTS, label).toContain(effect);
      // Only a new plan loop changes the loop number, by one.
      expect(result.state.planLoop, label).toBe(row.effects.includes('start-plan-loop') ? 4 : 3);
    }
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

  it('a local-runner task skips the review: worker (and its gate) lead straight to the archive', () => {
    const local = {
      selfcheckRequired: false,
      hasGate: false,
      localRunner: true,
      isolated: false,
      hasProjectGates: false,
      redTeam: false,
    };
    const worker = transition({ phase: 'worker', planLoop: 1 }, 'passed', local);
    expect(worker.ok && worker.state.phase).toBe('archive');
    const gated = transition({ phase: 'worker', planLoop: 1 }, 'passed', {
      ...local,
      hasGate: true,
    });
    expect(gated.ok && gated.state.phase).toBe('gate');
    const gate = transition({ phase: 'gate', planLoop: 1 }, 'passed', { ...local, hasGate: true });
    expect(gate.ok && gate.state.phase).toBe('archive');
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

  it('derives the vocabularies other modules use from the rows', () => {
    expect([...ATTEMPT_ROLES]).toEqual(['worker', 'selfcheck', 'review', 'redteam']);
    const budgeted = ['worker', 'selfcheck', 'gate', 'project-gates', 'review', 'redteam'];
    expect([...BUDGET_STAGES]).toEqual(budgeted);
    expect([...WORK_LOG_ROLES]).toEqual([
      'worker',
      'selfcheck',
      'writeset',
      'gate',
      'project-gates',
      'review',
      'redteam',
      'apply',
    ]);
    for (const s of DECISION_STAGES) expect(LIFECYCLE[s].decision).toBe(s);
    // Gates and the archive never hold an agent slot.
    expect(PHASES.filter(takesAgentSlot)).toEqual(['worker', 'selfcheck', 'review', 'redteam']);
  });

  it('a minor-only review archives without another worker round or plan loop', () => {
    const facts = {
      selfcheckRequired: true,
      hasGate: true,
      isolated: false,
      localRunner: false,
      hasProjectGates: false,
      redTeam: false,
    };
    expect(transition({ phase: 'review', planLoop: 2 }, 'approved-with-notes', facts)).toEqual({
      ok: true,
      state: { phase: 'archive', planLoop: 2 },
      effects: ['reset-failures', 'clear-failover', 'clear-backoff'],
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
    localRunner: false,
    hasProjectGates: false,
    redTeam: false,
  });
  const next = (phase: Phase, outcome: Parameters<typeof transition>[1], f: LifecycleFacts) => {
    const t = transition({ phase, planLoop: 1 }, outcome, f);
    return t.ok ? t.state.phase : t.reason;
  };

  it('checks the write set after the worker or self-check, only when isolated', () => {
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

  it('applies after an approved review when isolated; a failed apply goes back to the worker; waiting stays', () => {
    expect(next('review', 'approved', facts(true))).toBe('apply');
    expect(next('review', 'approved', facts(false))).toBe('archive');
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
      localRunner: false,
    };
    const ok = (phase: Phase, outcome: 'passed' | 'gate-failed', facts: LifecycleFacts) => {
      const t = transition({ phase, planLoop: 1 }, outcome, facts);
      return t.ok ? t.state.phase : t.reason;
    };
    expect(ok('worker', 'passed', all)).toBe('gate');
    expect(ok('gate', 'passed', all)).toBe('project-gates');
    expect(ok('worker', 'passed', { ...all, hasGate: false })).toBe('project-gates');
    expect(ok('selfcheck', 'passed', { ...all, hasGate: false })).toBe('project-gates');
    expect(ok('gate', 'passed', { ...all, hasProjectGates: false })).toBe('review');
    expect(ok('project-gates', 'passed', all)).toBe('review');
    expect(ok('project-gates', 'gate-failed', all)).toBe('worker');
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
    localRunner: false,
    hasProjectGates: false,
    redTeam,
  });
  const next = (phase: Phase, outcome: Parameters<typeof transition>[1], f: LifecycleFacts) => {
    const t = transition({ phase, planLoop: 1 }, outcome, f);
    return t.ok ? t.state.phase : t.reason;
  };

  it('runs the red-team review only after the normal review approved, and only when asked', () => {
    expect(next('review', 'approved', facts(true))).toBe('redteam');
    expect(next('review', 'approved-with-notes', facts(true))).toBe('redteam');
    expect(next('review', 'approved', facts(false))).toBe('archive');
    // A normal review's CHANGES_REQUESTED goes back to the worker, red-team or not.
    expect(next('review', 'changes-requested', facts(true))).toBe('worker');
  });

  it('an approving red-team review lands the work (apply when isolated, else archive)', () => {
    expect(next('redteam', 'approved', facts(true))).toBe('archive');
    expect(next('redteam', 'approved', facts(true, true))).toBe('apply');
    expect(next('redteam', 'approved-with-notes', facts(true))).toBe('archive');
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
