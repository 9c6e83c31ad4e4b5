import type { RunCounts, RunEvent } from '@switchyard/core';
import { type DispatchResult, phaseLabel } from '@switchyard/engine';
import { evidenceMessage } from '@switchyard/runner-kit';
import { lazyRequire, terminalSafe, terminalText } from '@switchyard/utils';
import type * as LogUpdate from 'log-update';
import pc from 'picocolors';
import { ATTEMPT_BUDGET, ProgressState } from './progress-block.js';

/** Renders the event stream for a human: one line per significant event, plus a live
 * status block (counts, elapsed, each running attempt) redrawn in place on a terminal. */
export interface RunRenderer {
  onEvent(event: RunEvent): void;
  summary(result: DispatchResult, where: { archive: string; state: string }): void;
}

// Only a terminal gets the live block: a run piped to a file or CI never loads log-update
// and the terminal-width modules under it (a tenth of the run's start-up modules).
const logUpdate = lazyRequire<typeof LogUpdate>('log-update', import.meta.url);

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
};

/** At most `max` characters, marked with `…` when cut. */
const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

const first = (lines: readonly string[]) =>
  lines[0] ? `: ${clip(evidenceMessage(lines[0]).replace(/\s+/g, ' '), 160)}` : '';

/**
 * The line for one event, or undefined when the event is not worth a line of its own. Its
 * text (evidence, reasons, questions quoting what an agent printed) is made terminal-safe
 * first: an agent's escape sequences are shown, never acted on by the user's terminal.
 */
export function formatEvent(raw: RunEvent): string | undefined {
  const event = terminalSafe(raw);
  const tag = (label: string, paint: (s: string) => string = (s) => s) => paint(label.padEnd(10));
  switch (event.type) {
    case 'run.started':
      return `${pc.bold('switchyard run')} ${event.workspace} · catalog ${event.catalog.source} (${event.catalog.revision.slice(0, 12)}) · max-parallel ${event.maxParallel || 'unlimited'} · ${event.tasks} task(s)`;
    case 'task.admitted':
      return `${tag('admitted', pc.cyan)} ${event.task} (plan loop ${event.planLoop})`;
    case 'attempt.started':
      return event.reattached
        ? `${tag('reattached', pc.cyan)} ${event.task} ${event.role} on ${event.target} (pid ${event.pid}${event.sandbox ? `, sandboxed: ${event.sandbox}` : ''})`
        : undefined;
    case 'task.waiting':
      return event.reason !== 'dependencies'
        ? `${tag('waiting', pc.dim)} ${event.task}: ${event.detail}`
        : undefined;
    case 'target.failover':
      return `${tag('failover', pc.yellow)} ${event.task} ${phaseLabel(event.stage)}: ${event.from} -> ${event.to} (${event.class}${first(event.evidence)})`;
    case 'attempt.retry-scheduled':
      return `${tag('retry', pc.yellow)} ${event.task} ${phaseLabel(event.role)} on ${event.target} in ${(event.delayMs / 1000).toFixed(1)}s (${event.consecutiveFailures}/${ATTEMPT_BUDGET}, ${clip(event.reason, 160)})`;
    case 'gate.finished':
      if (event.gate)
        return event.passed
          ? `${tag('gate', pc.green)} ${event.task} loop ${event.planLoop}: project gate ${event.gate} passed`
          : `${tag('gate', pc.yellow)} ${event.task} loop ${event.planLoop}: project gate ${event.gate} failed (${event.detail}); back to the worker`;
      return event.passed
        ? undefined
        : `${tag('gate', pc.yellow)} ${event.task} loop ${event.planLoop}: failed (${event.detail}); back to the worker`;
    case 'local.finished':
      return `${tag('local', event.passed ? pc.green : pc.red)} ${event.task}: ${event.command.join(' ')}${event.shell ? ' (shell)' : ''} — ${event.detail}`;
    case 'review.verdict': {
      const f = event.findings;
      const paint = event.verdict === 'APPROVED' ? pc.green : pc.yellow;
      return `${tag('review', paint)} ${event.task} loop ${event.planLoop}: ${event.verdict} (${f.critical} critical, ${f.moderate} moderate, ${f.minor} minor)`;
    }
    case 'task.plan-loop':
      return `${tag('plan loop', pc.cyan)} ${event.task} -> loop ${event.planLoop} (${event.plan})`;
    case 'task.blocked':
      return `${tag('blocked', pc.red)} ${event.task} [${event.stage}] ${event.reason}`;
    case 'task.escalated':
      return `${tag('escalated', pc.red)} ${event.task} ${event.code}: ${event.question} (${event.bundle}; answer with \`switchyard resolve ${event.task} --retry|--skip\`)`;
    case 'task.parked':
      return `${tag('parked', pc.yellow)} ${event.task} ${event.stage} until ${event.until}: every candidate (${event.targets.join(', ')}) waits for its quota to reset`;
    case 'task.archived':
      return `${tag('archived', pc.green)} ${event.task} -> ${event.archiveDir}`;
    case 'worklog.archived':
      return `${tag('work log', pc.green)} ${event.group} -> ${event.path}`;
    case 'task.isolation':
      if (event.step === 'setup' || event.step === 'setup-passed' || event.step === 'setup-failed')
        return `${tag('setup', event.step === 'setup-failed' ? pc.red : pc.cyan)} ${event.task}: ${clip(event.detail, 200)}`;
      return event.step === 'worktree' && !event.detail.startsWith('worktree moved')
        ? undefined
        : `${tag(event.step === 'applied' || event.step === 'patch' ? 'applied' : 'git', event.step === 'applied' || event.step === 'patch' ? pc.green : pc.yellow)} ${event.task}: ${clip(event.detail, 200)}`;
    case 'control.failure':
      return `${tag('failure', pc.red)} ${event.code}: ${event.message}`;
    case 'attempt.source-changed':
      return `${tag('source', pc.red)} ${event.task} ${event.role}: ${clip(event.detail, 200)}: ${clip(event.files.join(', '), 200)}`;
    case 'plan.changed':
      return `${tag(event.adopted ? 'plan' : 'finding', event.adopted ? pc.cyan : pc.red)} ${event.task}: ${clip(event.detail, 300)}`;
    case 'archive.checked':
      return `${tag(event.unrecorded.length > 0 ? 'finding' : 'archive', event.unrecorded.length > 0 ? pc.red : pc.dim)} ${clip(event.detail, 300)}`;
    case 'admission.held':
      return `${tag('holding', pc.dim)} ${event.detail}`;
    case 'human.action':
      return `${tag('human', pc.cyan)} ${event.action}${event.answer ? ` (${event.answer})` : ''}${event.task ? ` ${event.task}` : ''} by ${event.by ?? 'someone'} via ${event.via}: ${clip(event.detail, 200)}`;
    case 'run.stopping':
      return event.abortApply
        ? `${tag('stopping', pc.yellow)} aborting the apply under way: it is rolled back, and applies on the next run`
        : `${tag('stopping', pc.yellow)} nothing new starts and agents are stopped; an apply under way finishes, queued ones wait for the next run (stop again to abort it)`;
    default:
      return undefined;
  }
}

/** Formats the status line. */
export function formatCounts(counts: RunCounts, elapsedMs: number): string {
  return `[running ${counts.running} · ready ${counts.ready} · waiting ${counts.waiting} · blocked ${counts.blocked} · done ${counts.done} · ${clock(elapsedMs)}]`;
}

/**
 * A renderer writing to `out`. On a terminal, a status block under the event lines is
 * redrawn in place (log-update): the counts and elapsed time, then each running attempt with
 * its stage, target, elapsed time, attempt n of the budget and its last output line. Not a
 * terminal (a pipe, a file, CI): plain event lines only.
 */
export function createRunRenderer(out: NodeJS.WriteStream = process.stdout): RunRenderer {
  const live = out.isTTY === true;
  const block = live ? logUpdate().createLogUpdate(out, { showCursor: true }) : undefined;
  const progress = new ProgressState();
  let counts: RunCounts | undefined;
  // the run's elapsed time, on the monotonic clock (a wall-clock step does not move it)
  let started = performance.now();
  let ticker: NodeJS.Timeout | undefined;
  const draw = () => {
    if (!block || !counts) return;
    const now = Date.now();
    const rows = progress.lines(now, out.columns ?? 120).map((line) => `  ${line}`);
    block([pc.dim(formatCounts(counts, performance.now() - started)), ...rows].join('\n'));
  };
  const print = (line: string) => {
    if (block) {
      block.clear();
      out.write(`${line}\n`);
      draw();
    } else out.write(`${line}\n`);
  };
  return {
    onEvent(event) {
      progress.onEvent(event);
      if (event.type === 'run.started') {
        started = performance.now();
        // The block is redrawn once a second while the run lasts; it never drives work.
        if (live) ticker = setInterval(draw, 1000).unref();
      }
      if (event.type === 'run.progress') {
        counts = event.counts;
        draw();
        return;
      }
      if (event.type === 'run.finished') {
        if (ticker) clearInterval(ticker);
        block?.clear();
        counts = undefined;
        return;
      }
      const line = formatEvent(event);
      if (line) print(line);
      else if (event.type === 'attempt.started' || event.type === 'attempt.finished') draw();
    },
    summary(result, where) {
      const seconds = (result.elapsedMs / 1000).toFixed(1);
      const head =
        result.exitCode === 0
          ? pc.green(`Done: ${result.archived.length} task(s) archived in ${seconds}s.`)
          : result.exitCode === 130
            ? pc.yellow(`Interrupted after ${seconds}s; state is kept, run again to finish.`)
            : result.exitCode === 3
              ? pc.red(
                  `Stopped with ${result.blocked.length} blocked task(s) after ${seconds}s (${result.archived.length} archived).`,
                )
              : pc.red(`Control-plane failure after ${seconds}s.`);
      const lines = [head];
      for (const b of result.blocked)
        lines.push(`  ${pc.red('blocked')} ${b.task}: ${terminalText(b.reason)}`);
      for (const f of result.controlFailures)
        lines.push(`  ${pc.red('failure')} ${terminalText(f)}`);
      lines.push(
        `  archive:   ${where.archive} (each task with complete.log; work logs as work_log_<N>.log)`,
        `  evidence:  ${where.state} (events.jsonl, attempts/<id>/locator.json, stream.log, normalized-output.log)`,
        `  exit code: ${result.exitCode}`,
      );
      out.write(`${lines.join('\n')}\n`);
    },
  };
}
