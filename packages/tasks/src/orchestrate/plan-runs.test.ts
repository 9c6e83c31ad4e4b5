import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogSchema } from '@switchyard/catalog';
import { validCatalog } from '@switchyard/catalog/test-catalogs';
import { describe, expect, it } from 'vitest';
import { materializePlan } from './plan-materialize.js';
import { choosePlanRun, planRunFinished, planRuns, runGroupName } from './plan-runs.js';
import { validateOrchestratePlan } from './plan-validate.js';

const PLAN = `version: 1
kind: orchestrate-plan
metadata: { id: nightly, title: Nightly }
tasks:
  - { id: "1", title: One, files: [src/1.txt] }
  - { id: "2", title: Two, files: [src/2.txt] }
`;

const plan = (file: string) =>
  validateOrchestratePlan(PLAN, { file, catalog: catalogSchema.parse(validCatalog()) });

/** Moves every written task of `group` to the archive, as finished tasks are. */
function finish(ws: string, group: string) {
  mkdirSync(join(ws, 'agent-task', 'archive', group), { recursive: true });
  for (const task of ['1', '2'])
    renameSync(join(ws, 'agent-task', group, task), join(ws, 'agent-task', 'archive', group, task));
}

describe('a YAML plan is known by its content, its runs by their group', () => {
  it('the path as typed never makes a written or finished task "changed"', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-plan-runs-'));
    const typed = materializePlan(ws, plan('plan.yaml'));
    expect(typed.tasks.map((t) => t.status)).toEqual(['created', 'created']);
    // The same plan by its absolute path, or from a session that stored the resolved path.
    const absolute = plan(join(ws, 'plan.yaml'));
    expect(materializePlan(ws, absolute).tasks.map((t) => t.status)).toEqual([
      'unchanged',
      'unchanged',
    ]);
    finish(ws, 'nightly');
    expect(materializePlan(ws, absolute, { source: 'plans/../plan.yaml' }).tasks).toMatchObject([
      { status: 'done' },
      { status: 'done' },
    ]);
  });

  it('--again starts a new group once the latest run finished, continues an unfinished one', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-plan-runs-'));
    expect(choosePlanRun(ws, 'nightly', true)).toEqual({
      group: 'nightly',
      run: 1,
      anew: false,
      continued: false,
    });
    materializePlan(ws, plan('plan.yaml'));
    expect(planRunFinished(ws, 'nightly')).toBe(false);
    expect(choosePlanRun(ws, 'nightly', true)).toMatchObject({ group: 'nightly', continued: true });
    finish(ws, 'nightly');
    expect(choosePlanRun(ws, 'nightly', false)).toMatchObject({ group: 'nightly', anew: false });
    const second = choosePlanRun(ws, 'nightly', true);
    expect(second).toEqual({ group: 'nightly.run2', run: 2, anew: true, continued: false });
    const written = materializePlan(ws, { ...plan('plan.yaml'), planId: second.group });
    expect(written.tasks.map((t) => t.taskId)).toEqual(['nightly.run2/1', 'nightly.run2/2']);
    // The latest run is the one a plain re-run looks at.
    expect(planRuns(ws, 'nightly')).toEqual([1, 2]);
    expect(choosePlanRun(ws, 'nightly', false).group).toBe('nightly.run2');
    finish(ws, 'nightly.run2');
    expect(choosePlanRun(ws, 'nightly', true).group).toBe('nightly.run3');
  });

  it('a changed plan after its run finished: refused with the way out, --again runs it', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-plan-runs-'));
    materializePlan(ws, plan('plan.yaml'));
    finish(ws, 'nightly');
    const edited = validateOrchestratePlan(PLAN.replace('title: Two', 'title: Second'), {
      file: 'plan.yaml',
      catalog: catalogSchema.parse(validCatalog()),
    });
    const refused = materializePlan(ws, edited);
    expect(refused.problems[0]?.hint).toContain('switchyard run <plan> --again');
    const group = choosePlanRun(ws, 'nightly', true).group;
    expect(materializePlan(ws, { ...edited, planId: group }).problems).toEqual([]);
  });

  it('names runs after the first with a suffix other plans do not use', () => {
    expect(runGroupName('nightly', 1)).toBe('nightly');
    expect(runGroupName('nightly', 3)).toBe('nightly.run3');
    const ws = mkdtempSync(join(tmpdir(), 'sy-plan-runs-'));
    for (const name of ['nightly-2', 'nightly.runner', 'nightly.run0', 'nightly.run5'])
      mkdirSync(join(ws, 'agent-task', name), { recursive: true });
    writeFileSync(join(ws, 'agent-task', 'nightly.run7'), 'a file, not a group');
    expect(planRuns(ws, 'nightly')).toEqual([5]);
  });
});
