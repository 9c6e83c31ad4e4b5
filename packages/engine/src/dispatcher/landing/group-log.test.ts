import { describe, expect, it } from 'vitest';
import { isGroupLogArchivable } from './group-log.js';

describe('isGroupLogArchivable', () => {
  it('archives a group log only when every observed task is archived and idle', () => {
    const archived = new Set(['g/a', 'g/b']);
    const busy = new Set(['g/b']);
    const ok = (t: string) => archived.has(t);
    const idle = (t: string) => !busy.has(t);
    expect(isGroupLogArchivable(['g/a'], ok, idle)).toBe(true);
    expect(isGroupLogArchivable(['g/a', 'g/b'], ok, idle)).toBe(false);
    expect(isGroupLogArchivable(['g/a', 'g/c'], ok, idle)).toBe(false);
    expect(isGroupLogArchivable([], ok, idle)).toBe(false);
  });
});
