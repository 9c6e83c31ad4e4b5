import { FACTS, type LifecycleFacts } from './lifecycle-table.js';

/** Every combination of the lifecycle table's facts, for the tests that walk the table. */
export const factSets: LifecycleFacts[] = FACTS.reduce<LifecycleFacts[]>(
  (sets, fact) =>
    sets.flatMap((s) => [
      { ...s, [fact]: false },
      { ...s, [fact]: true },
    ]),
  [{} as LifecycleFacts],
);
