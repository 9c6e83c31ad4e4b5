// The run's state line under the header: running (since, elapsed), finished (exit code, what
// it means, counts, time, tokens and cost), crashed, or no run yet. A page left open after a
// run says it ended instead of trying to reconnect forever.
import { ago, cost, duration, esc, num, time } from './format.js';
import type { RunFinishedView, Snapshot } from './types.js';

/** What each exit code of `switchyard run` means (README: exit codes). */
const EXIT_MEANING: Record<number, string> = {
  0: 'every task archived',
  1: 'internal or control-plane failure',
  2: 'invalid input, nothing launched',
  3: 'ended with blocked tasks',
  130: 'interrupted',
};

/** The last `run.finished` event of the snapshot's run, if the last run finished. */
export function lastFinished(s: Snapshot): RunFinishedView | undefined {
  const runId = s.dispatcher.lastRun?.runId;
  for (let i = s.runs.length - 1; i >= 0; i -= 1) {
    const e = s.runs[i]!;
    if (e.type === 'run.finished' && (!runId || e.runId === runId)) return e;
    if (e.type === 'run.started') return undefined;
  }
  return undefined;
}

/** HTML of the run state line; `monitorEnded`: the monitor process said it stopped. */
export function runStateHtml(s: Snapshot, monitorEnded: boolean): string {
  const d = s.dispatcher;
  const finished = d.state !== 'running' ? lastFinished(s) : undefined;
  if (d.state === 'running' && d.lastRun) {
    return `<div class="rs rs-running" data-run-state="running"><b>run ${esc(d.lastRun.runId)} running</b> · started ${time(d.lastRun.startedAt)} · <span class="elapsed" data-since="${esc(d.lastRun.startedAt)}">${ago(d.lastRun.startedAt)}</span> <span class="run-actions"></span></div>`;
  }
  if (finished) {
    const ok = finished.exitCode === 0;
    const c = finished.counts;
    const blocked = finished.blocked.length
      ? `<ul class="rs-blocked">${finished.blocked.map((b) => `<li><a href="#${encodeURIComponent(b.task)}" data-goto="${esc(b.task)}">${esc(b.task)}</a>: ${esc(b.reason)}</li>`).join('')}</ul>`
      : '';
    const failures = finished.controlFailures?.length
      ? `<ul class="rs-failures">${finished.controlFailures.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>`
      : '';
    return (
      `<div class="rs ${ok ? 'rs-ok' : 'rs-bad'}" data-run-state="finished" data-exit-code="${finished.exitCode}">` +
      `<b>Run finished</b> · <b class="exit">exit ${finished.exitCode}</b> (${esc(EXIT_MEANING[finished.exitCode] ?? 'see the README')}) · ` +
      `<span class="c-done">${c.done} done</span> · <span class="c-blocked">${c.blocked} blocked</span> · ${c.waiting + c.ready} not started · ` +
      `took <span class="took">${duration(finished.elapsedMs)}</span> · ended ${time(finished.at)} · ` +
      `${num(s.usage.run.totalTokens)} tokens · ${cost(s.usage.run)}` +
      `${monitorEnded ? ' · <i>the monitor stopped with the run: this is the final state</i>' : ''}${blocked}${failures}</div>`
    );
  }
  if (d.state === 'crashed')
    return `<div class="rs rs-bad" data-run-state="crashed"><b>The dispatcher died</b>${d.pid ? ` (pid ${d.pid})` : ''}: its tasks are shown as it left them; <code>switchyard run</code> re-attaches.</div>`;
  return `<div class="rs" data-run-state="idle">${d.lastRun ? `last run ${esc(d.lastRun.runId)} started ${time(d.lastRun.startedAt)}, no end recorded` : 'no run yet: <code>switchyard run</code> starts one'}${monitorEnded ? ' · <i>the monitor stopped</i>' : ''}</div>`;
}
