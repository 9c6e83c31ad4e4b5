import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWorkspace } from '@switchyard/tasks';
import { describe, expect, it } from 'vitest';
import { planDryRun } from './plan-dry-run.js';

const plan = (file: string) =>
  `---\nroute: cloud-G01\n---\n# t\n\n## Modified Files Summary\n\n- ${file}\n\n## Implementation Checklist\n\n- [ ] do it\n`;

describe('the dry run and a blocked task that keeps its claim', () => {
  it('says which tasks wait on the claim of a blocked task', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-dry-claim-'));
    for (const id of ['a', 'b']) {
      mkdirSync(join(ws, 'agent-task', 'g', id), { recursive: true });
      writeFileSync(join(ws, 'agent-task', 'g', id, 'PLAN.md'), plan('src/shared.ts'));
    }
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'shared.ts'), '');
    const report = planDryRun({
      model: loadWorkspace(ws),
      routing: { valid: true, problems: [], targetIds: new Set(), stages: ['worker', 'review'] },
      maxParallel: 3,
      claims: [{ taskId: 'g/a', paths: ['src/shared.ts'], since: '2026-12-01T00:00:00Z' }],
      blocked: new Map([['g/a', '10 consecutive failed definition-of-done gates']]),
      now: new Date('2026-12-01T12:00:00Z'),
    });
    const b = report.tasks.find((t) => t.id === 'g/b');
    expect(b).toMatchObject({
      status: 'waiting-claim',
      waiting_on: ['g/a'],
      waiting_on_blocked_claim: ['g/a'],
    });
    expect(report.tasks.find((t) => t.id === 'g/a')?.waiting_on_blocked_claim).toEqual([]);
  });
});
