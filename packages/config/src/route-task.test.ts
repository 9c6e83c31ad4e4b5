import { DEFAULT_ROUTING, routeTask, routingSchema } from '@switchyard/catalog';
import { parseFrontMatter } from '@switchyard/tasks';
import { describe, expect, it } from 'vitest';
import { projectConfigSchema } from './schema.js';

describe('routing by complexity and risk', () => {
  it('documents its defaults: the bundled catalog route groups, red-team for high risk', () => {
    expect(projectConfigSchema.parse({}).routing).toEqual({
      complexity: { routine: 'cloud-G08', standard: 'cloud-G04', complex: 'cloud-G01' },
      risk: { low: {}, high: { review: 'red-team' } },
    });
  });

  it('maps complexity to its route and says why', () => {
    expect(routeTask({ complexity: 'complex' })).toEqual({
      route: 'cloud-G01',
      why: 'complexity: complex → cloud-G01 (routing.complexity.complex)',
    });
    const routing = routingSchema.parse({ complexity: { routine: 'local-G02' } });
    expect(routeTask({ complexity: 'routine' }, routing).route).toBe('local-G02');
    expect(routeTask({ complexity: 'standard' }, routing).route).toBe('cloud-G04');
  });

  it('an explicit route wins; a high risk still asks for a red-team review', () => {
    expect(routeTask({ route: 'cloud-G05', complexity: 'complex', risk: 'high' })).toEqual({
      route: 'cloud-G05',
      review: 'red-team',
      why: 'route: cloud-G05 in PLAN.md; risk: high → review: red-team (routing.risk.high.review)',
    });
  });

  it('a risk with its own route wins over complexity; risk alone means standard complexity', () => {
    const routing = routingSchema.parse({ risk: { high: { route: 'cloud-G02' } } });
    expect(routeTask({ complexity: 'routine', risk: 'high' }, routing)).toEqual({
      route: 'cloud-G02',
      why: 'risk: high → cloud-G02 (routing.risk.high.route)',
    });
    expect(routeTask({ risk: 'low' }, DEFAULT_ROUTING)).toEqual({
      route: 'cloud-G04',
      why: 'no complexity (standard) → cloud-G04 (routing.complexity.standard)',
    });
  });

  it('refuses a routing entry that is not a route id, naming the path', () => {
    const parsed = projectConfigSchema.safeParse({ routing: { complexity: { complex: 'fast' } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['routing', 'complexity', 'complex']);
  });

  it('PLAN front matter may give complexity/risk instead of a route; bad values are errors', () => {
    const ok = parseFrontMatter('complexity: complex\nrisk: high', 'PLAN.md', true);
    expect(ok.problems).toEqual([]);
    expect(ok.frontMatter).toMatchObject({ complexity: 'complex', risk: 'high' });
    const bad = parseFrontMatter('complexity: huge', 'PLAN.md', true);
    expect(bad.problems.map((p) => [p.message, p.line])).toEqual([
      ['complexity "huge" is not one of routine, standard, complex', 2],
    ]);
    const none = parseFrontMatter('depends_on: []', 'PLAN.md', true);
    expect(none.problems[0]?.message).toBe(
      'front matter has no `route` (nor `complexity` or `risk`)',
    );
  });
});
