import { formatProblem } from '@switchyard/core/errors';
import type { StatusReport } from '@switchyard/engine';
import { describeUsage, evidenceMessage } from '@switchyard/runner-kit';
import { terminalSafe } from '@switchyard/utils';
import pc from 'picocolors';
import stringWidth from 'string-width';

/** "3m12s ago" style age of an ISO instant relative to the report time. */
function age(iso: string | undefined, now: string): string {
  if (!iso) return '';
  const s = Math.max(0, Math.round((Date.parse(now) - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function dispatcherLine(r: StatusReport): string {
  const d = r.dispatcher;
  const last = d.lastRun;
  switch (d.state) {
    case 'running':
      return `${pc.green('running')} (pid ${d.pid} on ${d.host}, since ${d.since}, ${age(d.since, r.generatedAt)})`;
    case 'stopped':
      return `stopped; last run ${last?.runId} ended ${last?.finishedAt} with exit ${last?.exitCode}`;
    case 'crashed':
      return `${pc.red('crashed')}: run ${last?.runId ?? '?'} (pid ${d.pid}) ended without finishing; \`switchyard run\` recovers it (re-attaches live agents, judges the rest)`;
    default:
      return 'never run on this workspace';
  }
}

/** Why the next `switchyard run` would stop before anything starts (exit 2), problem by problem. */
function refusalLines(r: StatusReport): string[] {
  const refusal = r.runRefusal;
  if (!refusal) return [];
  return [
    '',
    pc.bold(
      pc.red(
        `next run refuses (${refusal.problems.length}): \`switchyard run\` stops with ${refusal.code} (exit 2) before anything starts`,
      ),
    ),
    ...refusal.problems.map((p) => `  ${pc.red('error')} ${formatProblem(p)}`),
    `  ${pc.dim(refusal.hint)}`,
  ];
}

/**
 * The human report of `switchyard status`. The report's text (evidence, reasons, questions
 * quoting what an agent printed) is made terminal-safe first.
 */
export function renderStatus(report: StatusReport): string {
  const r = terminalSafe(report);
  const out: string[] = [];
  const width = Math.max(
    8,
    ...[...r.running, ...r.waiting, ...r.blocked, ...r.done].map((e) => stringWidth(e.task)),
  );
  const name = (task: string) => task + ' '.repeat(Math.max(0, width - stringWidth(task)));
  out.push(`${pc.bold('switchyard status')} ${r.workspace}`);
  out.push(`dispatcher: ${dispatcherLine(r)}`);
  out.push(...refusalLines(r));
  out.push('');
  out.push(pc.bold(`running (${r.counts.running})`));
  for (const e of r.running) {
    const note = `${e.sandbox ? ` ${pc.cyan(`sandboxed (${e.sandbox})`)}` : ''}${e.supervision === 'watched' ? '' : ` ${pc.yellow(e.supervision)}`}`;
    if (e.activity) {
      out.push(
        `  ${name(e.task)}  ${e.activity}  since ${e.since} (${age(e.since, r.generatedAt)})`,
      );
      continue;
    }
    out.push(
      `  ${name(e.task)}  ${e.role.padEnd(9)} loop ${e.planLoop}${e.maxPlanLoops ? ` of ${e.maxPlanLoops}` : ''}  on ${e.target}  pid ${e.pid ?? '-'}  since ${e.since} (${age(e.since, r.generatedAt)})${note}`,
    );
  }
  out.push(pc.bold(`waiting (${r.counts.waiting})`));
  for (const e of r.waiting) out.push(`  ${name(e.task)}  ${e.why}`);
  out.push(pc.bold(`blocked (${r.counts.blocked})`));
  for (const e of r.blocked) {
    out.push(`  ${name(e.task)}  ${pc.red(`[${e.stage}]`)} ${e.reason}`);
    for (const line of e.evidence.slice(0, 4))
      out.push(`  ${' '.repeat(width)}    ${pc.dim(evidenceMessage(line).slice(0, 200))}`);
    if (e.claimWaiters)
      out.push(
        `  ${' '.repeat(width)}    keeps its claim (shared workspace); waiting on it: ${e.claimWaiters.join(', ')}`,
      );
  }
  if (r.escalations.length > 0) {
    out.push(pc.bold(`escalations (${r.escalations.length}) — waiting for a human`));
    for (const e of r.escalations) {
      out.push(`  ${name(e.task)}  ${pc.red(e.code)} ${e.question}`);
      const held =
        e.blockedDownstream.length > 0 ? `; holds up ${e.blockedDownstream.join(', ')}` : '';
      out.push(
        `  ${' '.repeat(width)}    ${pc.dim(`${e.bundle}${held}; answer: switchyard resolve ${e.task} --retry|--skip`)}`,
      );
    }
  }
  out.push(pc.bold(`done (${r.counts.done})`));
  for (const e of r.done) out.push(`  ${name(e.task)}  ${pc.dim(e.archiveDir)}`);
  if (r.gates.length > 0) {
    out.push(pc.bold('project gates'));
    for (const g of r.gates)
      out.push(
        `  ${name(g.task)}  ${g.passed ? pc.green('passed') : pc.red('FAILED')} ${g.name} (${g.on}, loop ${g.planLoop}) ${pc.dim(`${g.detail} — ${g.output}`)}`,
      );
  }
  if (r.usage.run.attempts > 0) {
    out.push(pc.bold('usage'));
    out.push(`  ${'all runs'.padEnd(width)}  ${describeUsage(r.usage.run)}`);
    for (const [target, totals] of Object.entries(r.usage.byTarget).sort())
      out.push(`  ${target.padEnd(width)}  ${pc.dim(describeUsage(totals))}`);
  }
  out.push('');
  return `${out.join('\n')}\n`;
}
