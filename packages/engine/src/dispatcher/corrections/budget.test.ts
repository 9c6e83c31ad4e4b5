import { describe, expect, it } from 'vitest';
import { checkBudget } from './budget.js';

describe('checkBudget', () => {
  it('blocks only past a cap, the task cap before the run cap', () => {
    const none = { usd: 0, estimated: false };
    expect(checkBudget(undefined, { usd: 9, estimated: false }, none)).toBeUndefined();
    expect(checkBudget({ maxPerTaskUsd: 1 }, { usd: 1, estimated: false }, none)).toBeUndefined();
    expect(
      checkBudget(
        { maxPerTaskUsd: 1, maxPerRunUsd: 1 },
        { usd: 1.5, estimated: true },
        { usd: 2, estimated: false },
      ),
    ).toMatchObject({
      scope: 'task',
      spentUsd: 1.5,
      message: 'the task cost $1.50 (partly estimated), over cost.maxPerTaskUsd = $1.00',
    });
    expect(checkBudget({ maxPerRunUsd: 1 }, none, { usd: 2, estimated: false })).toMatchObject({
      scope: 'run',
      limitUsd: 1,
    });
  });
});
