// Gate runs of a task: the command quoted as a shell needs it (copyable), the assertion, the
// result and the output; consecutive identical failures folded into one with a count.
import { esc, shellCommand } from './format.js';
import type { RunEventView } from './types.js';

type Gate = Extract<RunEventView, { type: 'gate.finished' }>;

const sameFailure = (a: Gate, b: Gate): boolean =>
  !a.passed &&
  !b.passed &&
  a.gate === b.gate &&
  a.command.join('\u0000') === b.command.join('\u0000') &&
  a.exitCode === b.exitCode &&
  a.detail === b.detail &&
  (a.output ?? []).join('\n') === (b.output ?? []).join('\n');

/** A copyable command: its shell-quoted text and a copy button. */
export function commandHtml(argv: readonly string[]): string {
  const line = shellCommand(argv);
  return `<code class="cmd-line">${esc(line)}</code> <button type="button" class="copy" data-copy="${esc(line)}" title="copy the command">copy</button>`;
}

function gateView(e: Gate, count: number): string {
  const assertion = e.assertion
    ? `<div class="assertion">assert <code>${esc(e.assertion)}</code></div>`
    : '';
  const output = e.output?.length
    ? `<pre class="gate-output">${esc(e.output.join('\n'))}</pre>`
    : '';
  const repeat =
    count > 1
      ? ` <b class="repeat" title="the same command failed the same way ${count} times in a row">× ${count}</b>`
      : '';
  return (
    `<div class="gate ${e.passed ? 'pass' : 'fail'}"><div class="cmd">${e.gate ? `project gate <b>${esc(e.gate)}</b> (${esc(e.on ?? 'task')}) ` : ''}${commandHtml(e.command)}</div>${assertion}` +
    `<div class="result">→ ${e.passed ? 'passed' : 'failed'} (exit ${e.exitCode ?? '—'}): ${esc(e.detail)}${repeat}</div>${output}</div>`
  );
}

/** Every gate run of a history, identical consecutive failures folded. */
export function gatesHtml(history: readonly RunEventView[]): string {
  const gates = history.filter((e): e is Gate => e.type === 'gate.finished');
  if (gates.length === 0) return '';
  const runs: Gate[][] = [];
  for (const g of gates) {
    const last = runs.at(-1);
    if (last && sameFailure(last[0]!, g)) last.push(g);
    else runs.push([g]);
  }
  return `<h3>Gates</h3>${runs.map((run) => gateView(run.at(-1)!, run.length)).join('')}`;
}
