import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AdmissionState, type AdmissionTask, admit } from './admit.js';
import { admitPasses } from './admit-passes.js';

// Ids whose order differs between code units and code points (the astral one sorts before
// 'ｚ' by code unit, after it by code point), and between cases.
const IDS = ['g/a', 'g/B', 'g/b', 'g/a1', 'h/x', 'g/\u{1F600}', 'g/\uFF5A', 'g/é'];
const PATHS = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'README.md', 'lib/x.ts'];

const subsetOf = <T>(items: readonly T[]) => fc.subarray([...items]);

const genView = fc.record({
  writeSet: subsetOf(PATHS),
  dependsOn: subsetOf([...IDS, 'g/archived-long-ago']),
  slotFree: fc.boolean(),
  fresh: fc.boolean(),
});

/** One pass's state; `ids: undefined` keeps the previous pass's task list (the usual pass). */
const genStep = fc.record({
  ids: fc.option(fc.shuffledSubarray(IDS), { nil: undefined, freq: 2 }),
  /** Keeps the last pass's views of the tasks it had (no plan read again, no phase moved). */
  sameViews: fc.boolean(),
  /** Keeps the last pass's blocked tasks, its invalid tasks. */
  sameBlocked: fc.boolean(),
  sameInvalid: fc.boolean(),
  /** Lists one task twice (admit keeps its last view). */
  duplicate: fc.nat(4).map((n) => n === 0),
  views: fc.array(genView, { minLength: IDS.length, maxLength: IDS.length }),
  archived: subsetOf([...IDS, 'g/archived-long-ago']),
  live: subsetOf(IDS),
  blocked: fc.option(subsetOf(IDS), { nil: undefined }),
  invalid: fc.option(subsetOf(IDS), { nil: undefined }),
  claims: fc.array(fc.tuple(fc.constantFrom(...PATHS), fc.constantFrom(...IDS, 'other/m')), {
    maxLength: 4,
  }),
  activeStages: fc.nat(4),
  maxParallel: fc.nat(3),
  scope: fc.option(subsetOf(IDS), { nil: undefined }),
  applyQueue: fc.option(fc.record({ waiting: fc.nat(2), limit: fc.nat(2) }), { nil: undefined }),
  worktreeDisk: fc.option(fc.record({ bytes: fc.nat(2), cap: fc.nat(2) }), { nil: undefined }),
});

type Step = typeof genStep extends fc.Arbitrary<infer S> ? S : never;

function stateOf(step: Step, ids: readonly string[]): AdmissionState {
  const tasks: AdmissionTask[] = ids.map((id) => {
    const v = step.views[IDS.indexOf(id)]!;
    return {
      id,
      writeSet: v.writeSet,
      dependsOn: v.dependsOn.filter((d) => d !== id),
      ...(v.slotFree ? { slotFree: true } : {}),
      ...(v.fresh ? { fresh: true } : {}),
    };
  });
  if (step.duplicate && tasks.length > 0) tasks.push({ ...tasks[0]!, writeSet: ['src/dup.ts'] });
  return {
    tasks,
    archivedComplete: new Set(step.archived),
    liveAttempts: new Set(step.live),
    ...(step.blocked ? { blocked: new Set(step.blocked) } : {}),
    ...(step.invalid ? { invalid: new Set(step.invalid) } : {}),
    claims: new Map(step.claims),
    activeStages: step.activeStages,
    maxParallel: step.maxParallel,
    ...(step.scope ? { scope: new Set(step.scope) } : {}),
    ...(step.applyQueue ? { applyQueue: step.applyQueue } : {}),
    ...(step.worktreeDisk ? { worktreeDisk: step.worktreeDisk } : {}),
  };
}

describe('admission kept between passes', () => {
  it('decides every pass of a changing backlog exactly as admit does', () => {
    fc.assert(
      fc.property(fc.array(genStep, { minLength: 1, maxLength: 12 }), (steps) => {
        const passes = admitPasses();
        let ids: readonly string[] = IDS;
        let last: AdmissionState | undefined;
        for (const step of steps) {
          ids = step.ids ?? ids;
          let state = stateOf(step, ids);
          if (last && step.sameViews) {
            const kept = new Map(last.tasks.map((t) => [t.id, t]));
            state = { ...state, tasks: state.tasks.map((t) => kept.get(t.id) ?? t) };
          }
          if (last && step.sameBlocked) state = { ...state, blocked: last.blocked };
          if (last && step.sameInvalid) state = { ...state, invalid: last.invalid };
          expect(passes(state)).toEqual(admit(state));
          last = state;
        }
      }),
      { numRuns: 400 },
    );
  });

  it('follows tasks leaving and joining the backlog one by one, as archives and new plans do', () => {
    const passes = admitPasses();
    const view = (id: string): AdmissionTask => ({ id, writeSet: [`src/${id}.ts`], dependsOn: [] });
    const backlog = ['t/05', 't/01', 't/09', 't/03', 't/07'];
    const state = (ids: readonly string[], claims: [string, string][] = []): AdmissionState => ({
      tasks: ids.map(view),
      archivedComplete: new Set(),
      liveAttempts: new Set(),
      claims: new Map(claims),
      activeStages: 0,
      maxParallel: 2,
    });
    const seen: string[][] = [];
    for (const ids of [
      backlog,
      backlog,
      backlog.filter((id) => id !== 't/01'),
      [...backlog.filter((id) => id !== 't/01'), 't/02', 't/00'],
      ['t/00', 't/02'],
      [],
      ['t/04'],
    ]) {
      const s = state(ids, ids.includes('t/07') ? [['src/t/07.ts', 't/07']] : []);
      const result = passes(s);
      expect(result).toEqual(admit(s));
      seen.push(result.decisions.map((d) => d.id));
    }
    // The claim holder first, then by id.
    expect(seen[0]).toEqual(['t/07', 't/01', 't/03', 't/05', 't/09']);
    expect(seen[3]).toEqual(['t/07', 't/00', 't/02', 't/03', 't/05', 't/09']);
    expect(seen[6]).toEqual(['t/04']);
  });
});
