import { describe, expect, it } from 'vitest';
import { attemptsHtml, attemptsOf, foldRepeats } from './client/attempts.js';
import { diffHtml } from './client/diff-view.js';
import { shellCommand } from './client/format.js';
import type { RunEventView, Snapshot, TaskView } from './client/types.js';

/** The page's pure rules, without a browser: folding, quoting and diff line kinds. */
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
function attempt(n: number, result: string, evidence: string[], target = 'a'): RunEventView[] {
  const base = { runId: 'r', task: 'g/t', role: 'worker', planLoop: 1, attempt: `x${n}`, target };
  return [
    { ...base, type: 'attempt.started', at: at(n * 10) },
    { ...base, type: 'attempt.finished', at: at(n * 10 + 4), result, evidence, durationMs: 4000 },
  ] as RunEventView[];
}
const task = (history: RunEventView[]) =>
  ({ id: 'g/t', group: 'g', history, state: 'blocked' }) as unknown as TaskView;

describe('the monitor page rules', () => {
  it('folds consecutive identical failures into one row with a count, never across a change', () => {
    const history = [
      ...attempt(1, 'success', []),
      ...attempt(2, 'generic-error', ['no change was made']),
      ...attempt(3, 'generic-error', ['no change was made']),
      ...attempt(4, 'generic-error', ['no change was made']),
      ...attempt(5, 'generic-error', ['no change was made'], 'b'),
      ...attempt(6, 'generic-error', ['other']),
    ];
    const runs = foldRepeats(attemptsOf(task(history)));
    expect(runs.map((r) => r.length)).toEqual([1, 3, 1, 1]);
    const html = attemptsHtml(task(history), { usage: { byTask: {} } } as unknown as Snapshot);
    expect(html.match(/<tr class="attempt/g)).toHaveLength(4);
    expect(html).toContain('× 3');
    expect(html).toContain('3 identical failures (attempts 2–4): no change was made');
    expect(html).toContain('<td class="took">4s</td>');
  });

  it('quotes commands as a POSIX shell reads them back', () => {
    expect(shellCommand(['npm', 'test'])).toBe('npm test');
    expect(shellCommand(['sh', '-c', "echo 'a b' && exit 1", ''])).toBe(
      `sh -c 'echo '\\''a b'\\'' && exit 1' ''`,
    );
    expect(shellCommand(['node', '--eval=$HOME;x', 'ü'])).toBe(`node '--eval=$HOME;x' 'ü'`);
  });

  it('colours a diff by line kind and counts the changed lines', () => {
    const html = diffHtml({
      source: 'commit abc',
      truncated: false,
      text: 'commit abc\n\n    subject\n---\n a | 2 +-\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-old\n+new\n same',
    });
    expect(html).toContain(
      '1 file(s) · <span class="d-add">+1</span> <span class="d-del">−1</span>',
    );
    expect(html).toContain('<span class="d-meta">--- a/a</span>');
    expect(html).toContain('<span class="d-meta">---</span>');
    expect(html).toContain('<span class="d-del">-old</span>');
    expect(html).toContain('<span class="d-hunk">@@ -1 +1 @@</span>');
  });
});
