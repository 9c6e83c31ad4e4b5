import { describe, expect, it } from 'vitest';
import { admissionTaskOf } from '../admission/task-view.js';
import { admissionViewOf } from './live-admission.js';

const task = (writeSet: string[], deps: string[] = []) => ({
  id: 'g/t',
  writeSet: writeSet.map((path) => ({ path, raw: path, line: 1 })),
  dependsOn: deps.map((id) => ({ id, raw: id, line: 1 })),
});

describe('the admission view of a task in a live run', () => {
  it('is built once per task object and flags, and again when the plans are read again', () => {
    const first = task(['src/a.ts', 'src/b.ts'], ['g/dep']);
    const view = admissionViewOf(first, false, true);
    expect(view).toEqual(admissionTaskOf(first, false, true));
    // The next scheduling pass: the same view, not a new one.
    expect(admissionViewOf(first, false, true)).toBe(view);
    // Other flags (its next stage takes no slot, it has started): their own view.
    expect(admissionViewOf(first, true, false)).toEqual(admissionTaskOf(first, true, false));
    expect(admissionViewOf(first, false, false).fresh).toBeUndefined();
    // A plan read again is a new task object: its new write set is what admission sees.
    const reread = task(['src/c.ts']);
    expect(admissionViewOf(reread, false, true).writeSet).toEqual(['src/c.ts']);
    // A task object given new lists in place is not judged on the old ones either.
    first.writeSet = [{ path: 'src/d.ts', raw: 'src/d.ts', line: 1 }];
    expect(admissionViewOf(first, false, true).writeSet).toEqual(['src/d.ts']);
  });
});
