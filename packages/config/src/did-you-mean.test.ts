import { catalogSchema } from '@switchyard/catalog';
import { orchestratePlanSchema, validateOrchestratePlan } from '@switchyard/tasks';
import { closestName, issuesToProblems, knownKeysAt } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { projectConfigSchema } from './schema.js';

describe('did you mean: a misspelt key names the key it was meant to be', () => {
  it('closestName: near names, letter case, and nothing for a far one', () => {
    const keys = ['maxParallel', 'maxApplyQueue', 'retry', 'routing', 'notify'];
    expect(closestName('maxParalel', keys)).toBe('maxParallel');
    expect(closestName('maxparallel', keys)).toBe('maxParallel');
    expect(closestName('retyr', keys)).toBe('retry');
    expect(closestName('notfy', keys)).toBe('notify');
    expect(closestName('colour', keys)).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });

  it('knownKeysAt follows objects, defaults, optionals, arrays, records and unions', () => {
    expect(knownKeysAt(projectConfigSchema, [])).toContain('routing');
    expect(knownKeysAt(projectConfigSchema, ['retry'])).toEqual(['baseDelayMs', 'maxDelayMs']);
    expect(knownKeysAt(projectConfigSchema, ['routing', 'risk', 'high'])).toEqual([
      'route',
      'review',
    ]);
    expect(knownKeysAt(projectConfigSchema, ['notify', 'webhooks', 0])).toEqual([
      'url',
      'events',
      'headers',
    ]);
    expect(knownKeysAt(projectConfigSchema, ['maxParallel'])).toEqual([]);
    expect(knownKeysAt(catalogSchema, ['targets', 'any-id'])).toContain('agent');
    expect(knownKeysAt(orchestratePlanSchema, ['tasks', 3, 'definition_of_done'])).toEqual([
      'command',
      'assertion',
    ]);
  });

  it('the project config: one problem per key, each with its own suggestion', () => {
    const parsed = projectConfigSchema.safeParse({
      maxParalel: 2,
      retry: { baseDelaMs: 1 },
      routing: { complexity: { standrd: 'cloud-G04' } },
      zzz: 1,
    });
    if (parsed.success) throw new Error('expected problems');
    const problems = issuesToProblems(parsed.error.issues, 'SY_CONFIG_INVALID', {
      schema: projectConfigSchema,
      keysRef: 'every key: the README',
    });
    const hint = (path: string) => problems.find((p) => p.path === path)?.hint;
    // The project config has more than 20 top-level keys: the hint names where they are described.
    expect(hint('maxParalel')).toBe('did you mean "maxParallel"? rename it; every key: the README');
    expect(hint('retry.baseDelaMs')).toBe(
      'did you mean "baseDelayMs"? rename it; allowed keys: baseDelayMs, maxDelayMs',
    );
    expect(hint('routing.complexity.standrd')).toBe(
      'did you mean "standard"? rename it; allowed keys: routine, standard, complex',
    );
    expect(hint('zzz')).toBe('remove the key; every key: the README');
    // Where the keys are too many to list, the hint names where they are described.
    const targets = catalogSchema.safeParse({ schema_version: 1, targets: { t: { agnt: 'x' } } });
    if (targets.success) throw new Error('expected problems');
    const agnt = issuesToProblems(targets.error.issues, 'SY_CATALOG_INVALID', {
      schema: catalogSchema,
      keysRef: 'every key: the schema',
    }).find((p) => p.path === 'targets.t.agnt');
    expect(agnt?.hint).toMatch(/^did you mean "agent"\? rename it; /);
    // Nothing about the catalog in a config problem.
    expect(problems.map((p) => p.hint).join('\n')).not.toContain('catalog');
  });

  it('a YAML plan: the hint at the line of the key names the near one', () => {
    const plan = [
      'version: 1',
      'kind: orchestrate-plan',
      'metadata:',
      '  title: T',
      'tasks:',
      '  - id: a',
      '    title: A',
      '    depends_onn: []',
    ].join('\n');
    const { problems } = validateOrchestratePlan(plan, { file: 'p.yaml' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 8, column: 5 });
    expect(problems[0]?.hint).toMatch(/^did you mean "depends_on"\? rename it; allowed keys: id, /);
  });
});
