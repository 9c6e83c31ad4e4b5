import { formatProblem } from '@switchyard/core/errors';
import type { DryRunReport } from '@switchyard/engine/dry-run';
import pc from 'picocolors';

const STATUS_COLOR: Record<string, (s: string) => string> = {
  admitted: pc.green,
  active: pc.green,
  invalid: pc.red,
  blocked: pc.red,
  'dependency-blocked': pc.red,
};

/** The human form of a dry-run report. */
export function renderDryRun(report: DryRunReport): string {
  const out: string[] = [];
  const c = report.catalog;
  out.push(pc.bold('switchyard run --dry-run: nothing was launched'));
  out.push(`workspace  ${report.workspace}`);
  out.push(
    `catalog    ${c.valid ? pc.green('valid') : pc.red('invalid')}${c.source ? ` · ${c.source.kind}${c.source.path ? ` ${c.source.path}` : ''}` : ''}${c.revision ? ` · revision ${c.revision.slice(0, 12)}` : ''}`,
  );
  const o = report.options;
  out.push(
    `scope      ${o.task_group ? `group ${o.task_group}` : 'all groups'} · max_parallel ${o.max_parallel === 0 ? 'unlimited' : o.max_parallel}${o.with ? ` · with ${o.with}` : ''}${o.retry_blocked ? ' · retry-blocked' : ''}`,
  );
  out.push('');
  for (const t of report.tasks) {
    if (!t.in_scope) continue;
    const color = STATUS_COLOR[t.status] ?? pc.yellow;
    const stages = Object.entries(t.stages)
      .map(
        ([stage, s]) =>
          `${stage} ${s.selected ?? '-'}${s.selected_by === 'route' || s.selected_by === 'none' ? '' : ` (${s.selected_by})`}${s.not_worker ? ` (not the worker's ${s.not_worker})` : ''}`,
      )
      .join(', ');
    out.push(
      `${pc.bold(t.id)}  ${t.route ?? '(no route)'}  ${color(t.status)}${t.plan_loop > 1 ? `  plan loop ${t.plan_loop}` : ''}`,
    );
    if (t.route_reason) out.push(`  route       ${t.route_reason}`);
    if (stages) out.push(`  stages      ${stages}`);
    const fallbacks = Object.entries(t.stages).filter(([, s]) => s.candidates.length > 1);
    for (const [stage, s] of fallbacks)
      out.push(`  ${stage.padEnd(10)}  candidates ${s.candidates.join(' > ')}`);
    if (t.blocked) out.push(`  blocked     ${t.blocked}`);
    if (t.depends_on.length) out.push(`  depends on  ${t.depends_on.join(', ')}`);
    if (t.waiting_on.length) out.push(`  waiting on  ${t.waiting_on.join(', ')}`);
    if (t.waiting_on_blocked_claim.length)
      out.push(
        `  claim kept  by blocked ${t.waiting_on_blocked_claim.join(', ')} (its unfinished changes are in the shared files): retry it or settle it first`,
      );
    out.push(`  write set   ${t.write_set.map((e) => e.path).join(', ') || '(none)'}`);
    if (t.serialized_with.length)
      out.push(`  serialized  with ${t.serialized_with.join(', ')} (shared files)`);
    for (const p of t.problems)
      out.push(
        `  ${p.severity === 'warning' ? pc.yellow('warning') : pc.red('error')} ${p.file && p.line ? `${p.file}:${p.line} ` : ''}${p.message}`,
      );
  }
  if (report.collisions.length) {
    out.push(
      '',
      pc.bold(`Shared files (${report.collisions.length}): these tasks run one after another`),
    );
    for (const col of report.collisions.slice(0, 50))
      out.push(`  ${col.path}: ${col.tasks.join(', ')}`);
    if (report.collisions.length > 50)
      out.push(`  … ${report.collisions.length - 50} more (see --json)`);
  }
  if (report.claims.length) {
    out.push('', pc.bold('Held claims'));
    const blocked = new Set(report.tasks.filter((t) => t.blocked).map((t) => t.id));
    for (const cl of report.claims)
      out.push(`  ${cl.task}${blocked.has(cl.task) ? ' (blocked)' : ''}: ${cl.paths.join(', ')}`);
  }
  const a = report.admission;
  out.push('', `${pc.bold('Would start now')}: ${a.admitted.join(', ') || '(nothing)'}`);
  if (report.problems.length) {
    out.push('', pc.bold(`Problems (${report.problems.length})`));
    for (const p of report.problems)
      out.push(
        `  ${p.severity === 'warning' ? pc.yellow('warning') : pc.red('error')} ${formatProblem({ ...p, code: p.code as never })}`,
      );
  }
  const s = report.summary;
  out.push(
    '',
    `${s.in_scope} task${s.in_scope === 1 ? '' : 's'} in scope (${s.tasks} in the workspace, ${report.archived.length} archived): ${s.admitted} would start, ${s.waiting} waiting, ${s.invalid} invalid · ${s.errors} error${s.errors === 1 ? '' : 's'}, ${s.warnings} warning${s.warnings === 1 ? '' : 's'}`,
  );
  return `${out.join('\n')}\n`;
}
