import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taskFromPlanTexts } from '@switchyard/tasks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admitPlans, contractChanges, describeChanges, planHash } from './admitted-plan.js';
import { recordedPlanText } from './plan-copy.js';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'sy-admitted-'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const plan = (o: { files?: string[]; done?: string; deps?: string; prose?: string } = {}) =>
  [
    '---',
    'route: local-G01',
    ...(o.deps ? [`depends_on: [${o.deps}]`] : []),
    '---',
    o.prose ?? '# the task',
    '',
    '## Modified Files Summary',
    '',
    ...(o.files ?? ['src/a.ts']).map((f) => `- ${f}`),
    '',
    '## Implementation Checklist',
    '',
    '- [ ] first',
    '- [ ] ',
    '',
    ...(o.done
      ? ['## Definition of Done', '', `Command: \`${o.done}\``, 'Assertion: exit code 0', '']
      : []),
  ].join('\n');

const task = (text: string) => taskFromPlanTexts(ws, 'g/t', [{ loop: 1, text }]);

describe('the admitted plan', () => {
  it('pins each loop by its SHA-256 and starts the checklist from the plan', () => {
    const text = plan();
    const record = admitPlans([{ loop: 1, text }], task(text).checklist, new Date(0));
    expect(record.loops).toEqual([{ loop: 1, sha256: planHash(text), text }]);
    expect(record.checklist).toEqual([
      { checked: false, text: 'first' },
      { checked: false, text: '' },
    ]);
  });

  it('writes the copy of the current loop with the merged ticks (and an empty item’s text), earlier loops as admitted', () => {
    const one = plan();
    const two = plan({ prose: '# follow-up' });
    const record = admitPlans(
      [
        { loop: 1, text: one },
        { loop: 2, text: two },
      ],
      [],
      new Date(0),
    );
    record.checklist = [
      { checked: true, text: 'first' },
      { checked: true, text: 'filled in by the worker' },
    ];
    expect(recordedPlanText(record, 1)).toBe(one);
    expect(recordedPlanText(record, 2)).toBe(
      two
        .replace('- [ ] first', '- [x] first')
        .replace('- [ ] \n', '- [x] filled in by the worker\n'),
    );
    expect(recordedPlanText(record, 3)).toBeUndefined();
  });

  it('names what changes the contract (definition of done, write set, dependencies), never prose or ticks', () => {
    const admitted = task(plan({ done: 'node --version' }));
    const same = task(
      plan({ done: 'node --version', prose: '# reworded' }).replace('- [ ] first', '- [x] first'),
    );
    expect(contractChanges(admitted, same)).toEqual([]);
    const changed = task(
      plan({ done: 'node -e 1', files: ['src/a.ts', 'src/evil.ts'], deps: 'other' }),
    );
    const fields = contractChanges(admitted, changed);
    expect(fields).toEqual(['Definition of Done', 'write set', 'depends_on']);
    expect(describeChanges(admitted, changed, fields)).toContain(
      'Definition of Done: `node --version` → `node -e 1`',
    );
  });
});
