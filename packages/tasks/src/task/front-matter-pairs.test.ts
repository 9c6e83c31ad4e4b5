import { describe, expect, it } from 'vitest';
import { readYamlPairs } from './front-matter.js';
import { readSimpleFrontMatter } from './front-matter-pairs.js';

// The full parser's view of a front matter (undefined when it reports a problem).
const viaYaml = (yaml: string) => {
  const problems: string[] = [];
  const pairs = readYamlPairs(yaml, (message) => problems.push(message), true);
  return problems.length > 0 ? undefined : pairs;
};

// Shapes the fast reader must take, each checked against the full parser.
const SIMPLE = [
  'route: cloud-G03',
  'route: local-G01\ndepends_on: [a, b/c, g_1/t.x]',
  'route: local-G01\ndepends_on: []\n',
  'route: local-G01\ndepends_on:\n  - setup\n  - infra/db\ntarget: fast-target\nmax_plan_loops: 3',
  'depends_on:\n- a\n- b\nroute: cloud-G10',
  '# leading comment\nroute: cloud-G01   \n\n  # indented comment\nmax_plan_loops: 12',
  'depends_on:\n\n  # a comment between items\n  - a\n\n  - b',
  'route: 5\nmax_plan_loops: 0\ntarget: nullish\ndepends_on: [1, x, 20]',
  'unknown_key: value\nroute: local-G02',
  'route:    spaced   \ndepends_on:   [  a ,b  ,  c  ]  ',
];

// Shapes it must leave to the full parser (errors, other types, or anything unusual).
const TRICKY = [
  '',
  '# only a comment',
  'route: "cloud-G03"',
  "route: 'cloud-G03'",
  'route: cloud-G03 # trailing comment',
  'route: a\nroute: b',
  'route:\ntarget: x',
  'depends_on:',
  'depends_on: [a, [b]]',
  'depends_on: [a,]',
  'depends_on: [a,\n  b]',
  'depends_on:\n  - a\n    - b',
  'depends_on:\n  - a\n - b',
  'route: a\n  continued',
  'route: true',
  'route: NULL',
  'True: x',
  'null: x',
  'max_plan_loops: 0x1f',
  'max_plan_loops: 1e3',
  'max_plan_loops: 007',
  'max_plan_loops: 1.5',
  'route: ~',
  'route: {a: b}',
  'route:\tx',
  'route: x\r',
  '- a\n- b',
  '  route: x',
  'route: &anchor x',
  'route: !tag x',
  'key:value',
  'depends_on:\n  - "quoted"',
  'route: x\n...',
  '%YAML 1.2',
];

describe('readSimpleFrontMatter', () => {
  it.each(SIMPLE)('reads %j exactly as the YAML parser does', (yaml) => {
    const fast = readSimpleFrontMatter(yaml);
    expect(fast).toBeDefined();
    expect(fast).toEqual(viaYaml(yaml));
  });

  it.each(TRICKY)('leaves %j to the YAML parser', (yaml) => {
    expect(readSimpleFrontMatter(yaml)).toBeUndefined();
  });

  it('never disagrees with the YAML parser on generated front matter', () => {
    // Random lines from a pool of well-formed and malformed pieces: whenever the fast reader
    // answers, the full parser must accept the text and give the same pairs.
    const pieces = [
      'route: cloud-G01',
      'route: local-G09',
      'route: 42',
      'route: true',
      'route: "q"',
      'route:',
      'target: t-1',
      'target: a.b/c',
      'max_plan_loops: 3',
      'max_plan_loops: 03',
      'depends_on: [a, b]',
      'depends_on: []',
      'depends_on: [x, 1]',
      'depends_on:',
      '  - a',
      '  - g/b',
      '- c',
      '    - d',
      '  - "e"',
      '# comment',
      '',
      '  continued',
      'x_y: z',
      'route: a b',
    ];
    let seed = 7;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return (seed >>> 8) % n;
    };
    let answered = 0;
    for (let i = 0; i < 3000; i++) {
      const lines = Array.from({ length: 1 + rand(6) }, () => pieces[rand(pieces.length)]);
      const yaml = lines.join('\n');
      const fast = readSimpleFrontMatter(yaml);
      if (fast === undefined) continue;
      answered++;
      expect({ yaml, pairs: fast }).toEqual({ yaml, pairs: viaYaml(yaml) });
    }
    expect(answered).toBeGreaterThan(300);
  });
});
