import type { SessionPort } from '@switchyard/core';
import type { StatusReport } from '@switchyard/engine';
import { printJson } from '../output.js';
import { listSessions, readSession, type SessionView } from './session-view.js';

/** Where one task of a session stands, from the workspace status report. */
export interface SessionTaskLine {
  task: string;
  state: 'running' | 'waiting' | 'blocked' | 'done' | 'gone';
  why: string;
}

function taskLines(report: StatusReport, view: SessionView): SessionTaskLine[] {
  return view.plan.tasks.map((task): SessionTaskLine => {
    const running = report.running.find((e) => e.task === task);
    if (running) return { task, state: 'running', why: `${running.role} on ${running.target}` };
    const blocked = report.blocked.find((e) => e.task === task);
    if (blocked) return { task, state: 'blocked', why: blocked.reason };
    const waiting = report.waiting.find((e) => e.task === task);
    if (waiting) return { task, state: 'waiting', why: waiting.why };
    const done = report.done.find((e) => e.task === task);
    if (done) return { task, state: 'done', why: done.archiveDir };
    return { task, state: 'gone', why: 'no longer in agent-task/' };
  });
}

/** `status <session>` and `status --sessions`, text or JSON, from the store's sessions. */
export async function printSessionStatus(
  store: SessionPort,
  report: StatusReport,
  id: string | undefined,
  opts: { json?: boolean },
): Promise<void> {
  if (id === undefined) {
    const sessions = (await listSessions(store)).map((v) => ({
      id: v.plan.id,
      state: v.state,
      startedAt: v.status.startedAt,
      ...(v.status.exitCode !== undefined ? { exitCode: v.status.exitCode } : {}),
      tasks: v.plan.tasks.length,
      runs: v.status.runs.length,
    }));
    if (opts.json) {
      printJson({ schema_version: 1, sessions });
      return;
    }
    const lines = sessions.map(
      (s) =>
        `${s.id}  ${s.state.padEnd(11)} started ${s.startedAt}  ${s.tasks} task(s), ${s.runs} run(s)${s.exitCode !== undefined ? `, exit ${s.exitCode}` : ''}`,
    );
    process.stdout.write(
      `${lines.join('\n') || 'no sessions yet (each `switchyard run` starts one)'}\n`,
    );
    return;
  }
  const view = await readSession(store, id);
  const tasks = taskLines(report, view);
  if (opts.json) {
    printJson({
      schema_version: 1,
      session: { ...view.plan, status: view.status, state: view.state },
      tasks,
    });
    return;
  }
  const out = [
    `session ${view.plan.id}: ${view.state}${view.status.exitCode !== undefined ? ` (exit ${view.status.exitCode})` : ''}`,
    `  started ${view.status.startedAt}, ${view.status.runs.length} run(s); options ${JSON.stringify(view.plan.options)}`,
    ...tasks.map((t) => `  ${t.task}  ${t.state.padEnd(8)} ${t.why}`),
  ];
  if (view.state === 'crashed' || view.state === 'interrupted')
    out.push(`  continue it with: switchyard resume ${view.plan.id}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
