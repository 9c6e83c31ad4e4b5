import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readChecklist } from './checklist.js';
import { parsePlan } from './parse-plan.js';

const ws = mkdtempSync(join(tmpdir(), 'sy-plan-'));
mkdirSync(join(ws, 'src'));
writeFileSync(join(ws, 'src', 'a.ts'), '');
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const good = `---
route: cloud-G03
depends_on:
  - setup
  - infra/db
target: fast-target
max_plan_loops: 3
---
# Add the flag

Intro text.

## Modified Files Summary

This task changes:

- \`src/a.ts\` — add the flag
- src/__init__.py (new)
- \`docs/My Guide.md\`
- src/b.ts: wire it

## Implementation Checklist

- [ ] add the flag
  - [x] nested step
- [X] write tests

## Definition of Done

Command: \`pnpm test -- --run "flag tests"\`
Assertion: exit code 0
`;

const parse = (source: string, followUp = false) =>
  parsePlan(source, { file: 'PLAN.md', workspace: ws, followUp });
const errors = (source: string) => parse(source).problems.filter((p) => p.severity === 'error');

describe('parsePlan', () => {
  it('reads a complete plan', () => {
    const plan = parse(good);
    expect(plan.problems).toEqual([]);
    expect(plan.frontMatter).toMatchObject({
      route: 'cloud-G03',
      target: 'fast-target',
      maxPlanLoops: 3,
    });
    expect(plan.frontMatter.dependsOn.map((d) => [d.raw, d.line])).toEqual([
      ['setup', 4],
      ['infra/db', 5],
    ]);
    expect(plan.writeSet.map((e) => [e.path, e.line, e.note])).toEqual([
      ['src/a.ts', 17, '— add the flag'],
      ['src/__init__.py', 18, '(new)'],
      ['docs/My Guide.md', 19, undefined],
      ['src/b.ts', 20, 'wire it'],
    ]);
    expect(plan.checklist).toEqual([
      { checked: false, text: 'add the flag', line: 24 },
      { checked: true, text: 'nested step', line: 25 },
      { checked: true, text: 'write tests', line: 26 },
    ]);
    expect(plan.definitionOfDone).toEqual({
      argv: ['pnpm', 'test', '--', '--run', 'flag tests'],
      command: 'pnpm test -- --run "flag tests"',
      assertion: { kind: 'exit-code', code: 0 },
      line: 30,
    });
  });

  it('reports every problem with its line, not only the first', () => {
    const source = `---
route: cloud-G99
colour: blue
max_plan_loops: 0
depends_on: setup
---
## Modified Files Summary

- /abs/path.ts
- src/*.ts
- ../x.ts

## Implementation Checklist

- no checkbox here
`;
    const found = errors(source).map((p) => [p.line, p.message]);
    expect(found).toEqual([
      [2, expect.stringMatching(/route "cloud-G99" is not a route id/)],
      [3, expect.stringMatching(/unknown front matter key "colour"/)],
      [4, expect.stringMatching(/max_plan_loops must be a positive integer/)],
      [5, expect.stringMatching(/depends_on must be a list/)],
      [9, expect.stringMatching(/absolute/)],
      [10, expect.stringMatching(/glob/)],
      [11, expect.stringMatching(/escapes/)],
      [13, expect.stringMatching(/no `- \[ \]` items/)],
    ]);
  });

  it('requires route and front matter in PLAN.md but not in follow-ups', () => {
    const body =
      '## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [ ] x\n';
    expect(errors(body).map((p) => p.message)).toEqual([
      expect.stringMatching(/missing YAML front matter/),
    ]);
    expect(parse(body, true).problems).toEqual([]);
    expect(errors(`---\ntarget: x\n---\n${body}`).map((p) => p.message)).toEqual([
      expect.stringMatching(/no `route`/),
    ]);
  });

  it('refuses an empty write-set section and a missing one', () => {
    const fm = '---\nroute: local-G01\n---\n';
    expect(
      errors(`${fm}## Modified Files Summary\n\nnothing listed\n\n## Checklist\n\n- [ ] x\n`).map(
        (p) => [p.line, p.message],
      ),
    ).toEqual([[4, expect.stringMatching(/lists no files/)]]);
    expect(errors(`${fm}## Implementation Checklist\n\n- [ ] x\n`).map((p) => p.message)).toEqual([
      expect.stringMatching(/missing section "## Modified Files Summary"/),
    ]);
  });

  it('refuses an empty write-set entry', () => {
    const found = errors(
      '---\nroute: local-G01\n---\n## Modified Files Summary\n\n- src/a.ts\n- ``\n\n## Implementation Checklist\n\n- [ ] x\n',
    );
    expect(found.map((p) => [p.line, p.message])).toEqual([[7, 'empty write-set entry']]);
  });

  it('accepts legacy headings with a warning and refuses two write-set sections', () => {
    const legacy = parse(
      '---\nroute: local-G01\n---\n## Files to Modify\n\n- src/a.ts\n\n## Checklist\n\n- [ ] x\n',
    );
    expect(legacy.writeSet.map((e) => e.path)).toEqual(['src/a.ts']);
    expect(legacy.problems.map((p) => [p.severity, p.line, p.message])).toEqual([
      ['warning', 4, 'legacy heading "## Files to Modify"'],
      ['warning', 8, 'legacy heading "## Checklist"'],
    ]);
    const two = errors(
      '---\nroute: local-G01\n---\n## Modified Files Summary\n\n- src/a.ts\n\n## Modified Files\n\n- src/b.ts\n\n## Checklist\n\n- [ ] x\n',
    );
    expect(two.map((p) => [p.line, p.message])).toEqual([
      [8, expect.stringMatching(/2 "Modified Files Summary" sections/)],
    ]);
  });

  it('does not take headings inside code blocks for sections', () => {
    const plan = parse(
      '---\nroute: local-G01\n---\n```md\n## Modified Files Summary\n- nope.ts\n```\n## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [ ] x\n',
    );
    expect(plan.problems).toEqual([]);
    expect(plan.writeSet.map((e) => [e.path, e.line])).toEqual([['src/a.ts', 10]]);
  });

  it('reads Definition of Done forms and refuses bad ones', () => {
    const base =
      '---\nroute: local-G01\n---\n## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [ ] x\n\n## Definition of Done\n\n';
    const fenced = parse(
      `${base}\`\`\`sh\nnpm run check\n\`\`\`\n\nAssertion: stdout contains "all good"\n`,
    );
    expect(fenced.definitionOfDone).toMatchObject({
      argv: ['npm', 'run', 'check'],
      assertion: { kind: 'stdout-contains', text: 'all good' },
    });
    const regex = parse(`${base}- Command: make verify\n- Assertion: stdout matches /^ok \\d+/\n`);
    expect(regex.definitionOfDone).toMatchObject({
      argv: ['make', 'verify'],
      assertion: { kind: 'stdout-matches', pattern: '^ok \\d+' },
    });
    expect(
      errors(`${base}Command: \`npm test | tee log\`\nAssertion: exit code 0\n`).map(
        (p) => p.message,
      ),
    ).toEqual([expect.stringMatching(/shell operator "\|"/)]);
    expect(
      errors(`${base}Command: \`npm test\`\nAssertion: looks fine\n`).map((p) => [
        p.line,
        p.message,
      ]),
    ).toEqual([[15, expect.stringMatching(/unknown assertion/)]]);
    expect(errors(`${base}Command: \`npm test\`\n`).map((p) => p.message)).toEqual([
      'Definition of Done has no assertion',
    ]);
  });

  it('reports YAML syntax errors with their line', () => {
    const found = errors(
      '---\nroute: local-G01\ndepends_on: [a, \n---\n## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [ ] x\n',
    );
    expect(found[0]?.message).toMatch(/front matter:/);
    expect(found[0]?.line).toBeGreaterThanOrEqual(3);
  });

  it('reads a plan with CRLF line endings like the same plan with LF', () => {
    const crlf = parse(good.replace(/\n/g, '\r\n'));
    const lf = parse(good);
    expect(crlf.problems).toEqual([]);
    expect(crlf.writeSet).toEqual(lf.writeSet);
    expect(crlf.checklist).toEqual(lf.checklist);
    expect(crlf.definitionOfDone).toEqual(lf.definitionOfDone);
  });
});

describe('readChecklist', () => {
  it('returns checked state, text and line of every item', () => {
    expect(readChecklist(good).items.map((i) => [i.checked, i.text, i.line])).toEqual([
      [false, 'add the flag', 24],
      [true, 'nested step', 25],
      [true, 'write tests', 26],
    ]);
  });
});

describe('review front matter', () => {
  const withReview = (value: string) =>
    good.replace('max_plan_loops: 3\n', `max_plan_loops: 3\nreview: ${value}\n`);

  it('reads `review: red-team`', () => {
    const plan = parse(withReview('red-team'));
    expect(errors(withReview('red-team'))).toEqual([]);
    expect(plan.frontMatter.review).toBe('red-team');
    expect(plan.frontMatter.lines.review).toBe(8);
  });

  it('rejects another review mode with its line and the fix', () => {
    expect(errors(withReview('redteam'))).toEqual([
      expect.objectContaining({
        code: 'SY_PLAN_INVALID',
        message: 'review "redteam" is not a review mode',
        line: 8,
        hint: expect.stringContaining('review: red-team'),
      }),
    ]);
  });
});

describe('parsePlan: NUL bytes', () => {
  it('refuses a NUL byte where it stands instead of reading U+FFFD', () => {
    const text =
      '---\nroute: local-G01\n---\n# t\n\n## Modified Files Summary\n\n- src/a\u0000b.ts\n\n## Implementation Checklist\n\n- [ ] x\n';
    const problems = parsePlan(text, { file: 'PLAN.md' }).problems;
    expect(problems).toContainEqual(
      expect.objectContaining({ code: 'SY_PLAN_INVALID', line: 8, severity: 'error' }),
    );
    expect(problems.find((p) => p.line === 8)?.message).toMatch(/NUL byte/);
  });
});
