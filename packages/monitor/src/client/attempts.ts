// The attempts of a task: one row per attempt (stage, loop, target, start, duration, result,
// tokens, cost) with its evidence under it, runs of identical failures folded into one row
// with a count, and the time spent per stage.
import { ago, cost, duration, esc, num, time } from './format.js';
import type { RunEventView, Snapshot, TaskView, UsageView } from './types.js';

type Started = Extract<RunEventView, { type: 'attempt.started' }>;
type Finished = Extract<RunEventView, { type: 'attempt.finished' }>;

/** One attempt: its start and, once it ended, its end. */
interface AttemptView {
  start: Started;
  end?: Finished;
}

/** Attempts in the order they started. */
export function attemptsOf(t: TaskView): AttemptView[] {
  const ends = new Map<string, Finished>();
  for (const e of t.history) if (e.type === 'attempt.finished') ends.set(e.attempt, e);
  return t.history
    .filter((e): e is Started => e.type === 'attempt.started')
    .map((start) => {
      const end = ends.get(start.attempt);
      return end ? { start, end } : { start };
    });
}

/** How long an attempt ran (or runs so far), in ms. */
function tookMs(a: AttemptView): number {
  if (a.end?.durationMs !== undefined) return a.end.durationMs;
  const until = a.end ? Date.parse(a.end.at) : Date.now();
  return Math.max(0, until - Date.parse(a.start.at));
}

/** What makes two failed attempts the same: stage, target, result and first evidence line. */
function failureKey(a: AttemptView): string | undefined {
  if (!a.end || a.end.result === 'success') return undefined;
  return [a.start.role, a.start.target, a.end.result, a.end.evidence[0] ?? ''].join('\u0000');
}

/** Consecutive attempts with the same failure, as runs (a run of one is a plain attempt). */
export function foldRepeats(attempts: AttemptView[]): AttemptView[][] {
  const runs: AttemptView[][] = [];
  for (const a of attempts) {
    const last = runs.at(-1);
    const key = failureKey(a);
    if (last && key !== undefined && failureKey(last[0]!) === key) last.push(a);
    else runs.push([a]);
  }
  return runs;
}

const tokensOf = (u: UsageView | undefined): string =>
  u
    ? num(
        (u.inputTokens ?? 0) +
          (u.outputTokens ?? 0) +
          (u.cacheReadTokens ?? 0) +
          (u.cacheWriteTokens ?? 0) ||
          (u.totalTokens ?? 0),
      )
    : '—';

function row(a: AttemptView, repeat?: { count: number; first: number; last: number }): string {
  const e = a.start;
  const u = a.end?.usage;
  const c =
    u?.costUsd !== undefined ? cost({ costUsd: u.costUsd, costEstimated: !!u.costEstimated }) : '—';
  const took = a.end
    ? duration(tookMs(a))
    : `<span class="elapsed" data-since="${esc(e.at)}">${ago(e.at)}</span>`;
  const result = a.end ? esc(a.end.result) : '<i>running</i>';
  const sandbox = e.sandbox
    ? ` <span class="sandbox" title="ran inside a ${esc(e.sandbox)} sandbox">${esc(e.sandbox)}</span>`
    : '';
  // On a shared store: the machine that ran it.
  const machine = e.machine ? ` <span class="machine">on ${esc(e.machine)}</span>` : '';
  const folded = repeat
    ? ` <b class="repeat" title="attempts ${repeat.first}–${repeat.last} failed the same way">× ${repeat.count}</b>`
    : '';
  const main =
    `<tr class="attempt${a.end && a.end.result !== 'success' ? ' failed' : ''}" data-attempt="${esc(e.attempt)}">` +
    `<td><a href="#" data-tail="${esc(e.attempt)}">${esc(e.role)}</a></td><td>${e.planLoop}</td>` +
    `<td>${esc(e.target)}${sandbox}${machine}</td><td>${time(e.at)}</td><td class="took">${took}</td>` +
    `<td>${result}${folded}</td><td>${tokensOf(u)}</td><td>${c}</td></tr>`;
  const evidence =
    a.end && a.end.result !== 'success' && a.end.evidence.length > 0 ? a.end.evidence : undefined;
  if (!evidence) return main;
  const summary = repeat
    ? `${repeat.count} identical failures (attempts ${repeat.first}–${repeat.last}): ${evidence[0]}`
    : evidence[0];
  return `${main}<tr class="evidence-row"><td colspan="8"><details><summary>${esc(summary)}</summary><pre class="evidence">${esc(evidence.join('\n'))}</pre></details></td></tr>`;
}

/** The attempts table, repeated failures folded, with the task's usage total. */
export function attemptsHtml(t: TaskView, s: Snapshot): string {
  const attempts = attemptsOf(t);
  if (attempts.length === 0) return '';
  let n = 0;
  const rows = foldRepeats(attempts).map((run) => {
    const first = n + 1;
    n += run.length;
    // The newest of a folded run stands for it (its time and tokens are the latest).
    return run.length === 1
      ? row(run[0]!)
      : row(run.at(-1)!, { count: run.length, first, last: n });
  });
  const tt = s.usage.byTask[t.id];
  return (
    `<h3>Attempts</h3><div class="table-wrap"><table class="attempts"><thead><tr><th>stage</th><th>loop</th><th>target</th><th>started</th><th>took</th><th>result</th><th>tokens</th><th>cost</th></tr></thead><tbody>${rows.join('')}` +
    `${tt ? `<tr class="sum"><th colspan="6">task</th><td class="task-tokens">${num(tt.totalTokens)}</td><td>${cost(tt)}</td></tr>` : ''}</tbody></table></div>`
  );
}

/** Time per stage: attempts, time spent in them (a running one counts so far), first to last. */
export function stageTimesHtml(t: TaskView): string {
  const attempts = attemptsOf(t);
  if (attempts.length === 0) return '';
  const stages = new Map<string, { n: number; ms: number; running: boolean }>();
  for (const a of attempts) {
    const st = stages.get(a.start.role) ?? { n: 0, ms: 0, running: false };
    stages.set(a.start.role, st);
    st.n += 1;
    st.ms += tookMs(a);
    if (!a.end) st.running = true;
  }
  const first = Date.parse(attempts[0]!.start.at);
  const lastEnd = Math.max(
    ...attempts.map((a) => (a.end ? Date.parse(a.end.at) : Date.now())),
    ...t.history.filter((e) => e.type === 'task.archived').map((e) => Date.parse(e.at)),
  );
  const rows = [...stages]
    .map(
      ([role, st]) =>
        `<tr data-stage="${esc(role)}"><td>${esc(role)}</td><td>${st.n}</td><td class="took">${duration(st.ms)}${st.running ? ' <i>(running)</i>' : ''}</td></tr>`,
    )
    .join('');
  return `<h3>Time per stage</h3><table class="stages"><thead><tr><th>stage</th><th>attempts</th><th>time</th></tr></thead><tbody>${rows}<tr class="sum"><th colspan="2">first start to last end</th><td class="task-time">${duration(lastEnd - first)}</td></tr></tbody></table>`;
}
