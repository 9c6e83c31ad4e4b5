import { describe, expect, it } from 'vitest';
import { cappedParallel } from './plan-concurrency.js';

describe('execution.max_concurrency against the run limit', () => {
  it('lowers the run limit, never raises it; 0 is unlimited on either side', () => {
    expect(cappedParallel(3, 1)).toBe(1); // --max-parallel 3, plan 1
    expect(cappedParallel(1, 3)).toBe(1); // config maxParallel 1, plan 3: the run's 1 holds
    expect(cappedParallel(3, undefined)).toBe(3); // no max_concurrency: the run's limit
    expect(cappedParallel(3, 0)).toBe(3); // plan unlimited: the run's limit
    expect(cappedParallel(0, 2)).toBe(2); // run unlimited: the plan's
    expect(cappedParallel(0, 0)).toBe(0);
  });
});
