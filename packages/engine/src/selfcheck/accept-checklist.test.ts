import { describe, expect, it } from 'vitest';
import { acceptChecklist } from './accept-checklist.js';

describe('acceptChecklist', () => {
  it('accepts only a non-empty checklist with every box checked and described', () => {
    expect(
      acceptChecklist([
        { checked: true, text: 'parse', line: 3 },
        { checked: true, text: 'test', line: 4 },
      ]),
    ).toEqual({ accepted: true, items: 2 });
    expect(acceptChecklist([])).toEqual({
      accepted: false,
      reason: 'the Implementation Checklist has no checkbox',
      open: [],
    });
    const open = [
      { checked: false, text: 'wire it', line: 5 },
      { checked: true, text: ' ', line: 6 },
    ];
    expect(acceptChecklist([{ checked: true, text: 'parse', line: 4 }, ...open])).toEqual({
      accepted: false,
      reason: '1 unchecked and 1 checked without text of 3 checklist item(s)',
      open,
    });
  });
});
