import { describe, expect, it } from 'vitest';
import { formatProblem, SwitchyardError } from './errors.js';

describe('SwitchyardError', () => {
  it('carries a code, location and hint, and is recognised across realms by its brand', () => {
    const error = new SwitchyardError('SY_CATALOG_INVALID', 'bad route', {
      file: 'catalog.json',
      path: 'routes.worker',
      hint: 'add it',
    });
    expect(error.name).toBe('SwitchyardError');
    expect(error.code).toBe('SY_CATALOG_INVALID');
    expect(SwitchyardError.is(error)).toBe(true);
    expect(SwitchyardError.is(new Error('x'))).toBe(false);
    expect(SwitchyardError.is({ code: 'SY_INTERNAL' })).toBe(false);
  });

  it('keeps the cause it wraps', () => {
    const cause = new Error('ENOENT');
    expect(new SwitchyardError('SY_CATALOG_NOT_FOUND', 'missing', { cause }).cause).toBe(cause);
  });

  it('formats a problem with file, line, path and hint', () => {
    expect(
      formatProblem({
        code: 'SY_PLAN_INVALID',
        message: 'empty',
        file: 'PLAN.md',
        line: 7,
        hint: 'list files',
      }),
    ).toBe('SY_PLAN_INVALID PLAN.md:7: empty\n    hint: list files');
  });

  it('formats the offending value between the message and the hint', () => {
    expect(
      formatProblem({
        code: 'SY_CONFIG_INVALID',
        message: 'Invalid input: expected number, received string',
        file: 'switchyard.config.json',
        line: 2,
        column: 18,
        path: 'maxParallel',
        value: '"three"',
        hint: 'give a value of type number',
      }),
    ).toBe(
      'SY_CONFIG_INVALID switchyard.config.json:2:18 maxParallel: Invalid input: expected number, received string\n    value: "three"\n    hint: give a value of type number',
    );
  });
});
