import type { StatusReport } from '@switchyard/engine';
import { describe, expect, it } from 'vitest';
import { renderStatus } from './status-render.js';

const totals = { attempts: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, costUsd: 0 };

describe('status report', () => {
  it("shows an agent's control characters in evidence and questions as escapes", () => {
    const hostile = '- [CRITICAL] bad \x1b]0;PWNED\x1b\\ \x1b[2J\rthing';
    const report = {
      schema_version: 1,
      workspace: '/w',
      generatedAt: '2026-12-03T12:00:00.000Z',
      dispatcher: { state: 'never' },
      running: [],
      waiting: [],
      blocked: [
        { task: 'g/t', stage: 'plan-loop-cap', reason: 'sealed', evidence: [`R.md:2: ${hostile}`] },
      ],
      done: [],
      counts: { running: 0, waiting: 0, blocked: 1, done: 0 },
      usage: { run: totals, byTask: {}, byTarget: {}, attempts: [] },
      escalations: [
        {
          task: 'g/t',
          code: 'SY_BUDGET_EXHAUSTED',
          question: `The last evidence was: "${hostile}"`,
          bundle: 'b.json',
          blockedDownstream: [],
        },
      ],
      gates: [],
    } as unknown as StatusReport;
    const text = renderStatus(report).replace(/\x1b\[[0-9;]*m/g, '');
    expect(text).not.toMatch(/[\x1b\r]/);
    expect(text).toContain('R.md:2: - [CRITICAL] bad \\x1b]0;PWNED\\x1b\\ \\x1b[2J\\x0dthing');
    expect(text).toContain('The last evidence was: "- [CRITICAL] bad \\x1b]0;PWNED');
    // the report itself is left as it was (the JSON output prints it)
    expect(report.blocked[0]?.evidence[0]).toContain('\x1b[2J');
  });
});
