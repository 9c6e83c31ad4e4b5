import { describe, expect, it } from 'vitest';
import { configValues } from './config-values.js';

describe('configValues: every setting and where it came from', () => {
  it('walks every section to its leaves; file, default, override; unset sections as null', () => {
    const values = configValues({
      config: {
        retry: { baseDelayMs: 10, maxDelayMs: 300_000 },
        routing: { risk: { high: { review: 'red-team' } } },
        gates: [{ name: 'lint', command: ['npm', 'run', 'lint'] }],
        prices: {},
        maxParallel: 3,
      },
      raw: { retry: { baseDelayMs: 10 }, gates: [{ name: 'lint' }] },
      file: 'switchyard.config.json',
      sections: ['retry', 'routing', 'gates', 'prices', 'notify', 'maxParallel'],
      overrides: new Map([['maxParallel', { value: 2, from: 'flag', source: '--max-parallel' }]]),
    });
    expect(values).toEqual([
      { key: 'retry.baseDelayMs', value: 10, from: 'file', source: 'switchyard.config.json' },
      { key: 'retry.maxDelayMs', value: 300_000, from: 'default' },
      { key: 'routing.risk.high.review', value: 'red-team', from: 'default' },
      {
        key: 'gates',
        value: [{ name: 'lint', command: ['npm', 'run', 'lint'] }],
        from: 'file',
        source: 'switchyard.config.json',
      },
      { key: 'prices', value: {}, from: 'default' },
      { key: 'notify', value: null, from: 'default' },
      { key: 'maxParallel', value: 2, from: 'flag', source: '--max-parallel' },
    ]);
  });
});
