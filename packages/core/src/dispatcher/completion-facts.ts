import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { probeAttempt } from '../state/attempt-probe.js';
import { workLogPath } from '../worklog/work-log.js';
import { ARCHIVE_DIR, COMPLETE_LOG } from '../workspace/paths.js';
import type { DispatchContext, TaskRuntime } from './context.js';
import type { BlockedSummary } from './types.js';

/**
 * Locators (last column) of the attempts that have a START row and no FINISH row in a work
 * log's text. A row pair is matched on every column the two rows share (task artifact, plan
 * loop, role, attempt ordinal, agent/model, locator), split on unescaped pipes only.
 */
export function startsWithoutFinish(text: string): string[] {
  return [...openStarts(text).keys()];
}

/**
 * The START rows of a work log's text that have no FINISH row: locator → the row's agent/model
 * cell (what the attempt ran on, which its FINISH row must repeat whatever the catalog says
 * now). A row pair is matched on every column the two rows share.
 */
export function openStarts(text: string): Map<string, string> {
  const open = new Map<string, { locator: string; agentModel: string }>();
  for (const line of text.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    // ['', time, kind, artifact, loop, role, attempt, agent/model, result, locator, '']
    if (cells.length < 11) continue;
    const kind = cells[2];
    const locator = cells[9] ?? '';
    // The loop cell reads `N of M`; a cap edited between START and FINISH is the same attempt.
    const loop = (cells[4] ?? '').replace(/ of \d+$/, '');
    const key = [cells[3], loop, ...cells.slice(5, 8), locator].join('\u0000');
    if (kind === 'START') open.set(key, { locator, agentModel: unescapeCell(cells[7] ?? '') });
    else if (kind === 'FINISH') open.delete(key);
  }
  return new Map([...open.values()].map((o) => [o.locator, o.agentModel]));
}

/** A cell's text as the row was given it (the work log escapes pipes in cells). */
const unescapeCell = (cell: string) => cell.replace(/\\\|/g, '|');

/** What keeps a run from exiting 0 although no task is blocked: see `completionFacts`. */
export interface CompletionGaps {
  /** Control-plane failures (exit 1): a live agent, a START row without its FINISH. */
  failures: string[];
  /** Archived task folders without `complete.log` (exit 3, like a blocked task). */
  incomplete: BlockedSummary[];
}

/**
 * Checks the facts an exit 0 stands for, from the files themselves: no agent of an in-scope
 * task is still alive, every task folder under `agent-task/archive/<group>/` of the scope
 * has `complete.log`, and every START row of the scope's work logs (the active ones and those
 * archived during this run) has its FINISH row.
 */
export function completionFacts(
  ctx: DispatchContext,
  inScope: readonly TaskRuntime[],
  groups: ReadonlySet<string>,
  startedAt: number,
): CompletionGaps {
  const failures: string[] = [];
  for (const rt of inScope) {
    for (const record of rt.state.attempts) {
      if (record.status === 'finished') continue;
      const probe = probeAttempt(record);
      if (probe.state === 'live')
        failures.push(`${rt.id}: attempt ${record.id} is still running (pid ${probe.pid})`);
    }
  }
  const incomplete: BlockedSummary[] = [];
  for (const group of groups) {
    const archiveDir = join(ctx.workspace, 'agent-task', ARCHIVE_DIR, group);
    const logs = [workLogPath(ctx.workspace, group)];
    for (const entry of entries(archiveDir)) {
      const path = join(archiveDir, entry.name);
      if (entry.isDirectory()) {
        if (!existsSync(join(path, COMPLETE_LOG)))
          incomplete.push({
            task: `${group}/${entry.name}`,
            reason: `archived without ${COMPLETE_LOG} (${relative(ctx.workspace, path)}): add it to mark the task complete, or move the folder back under agent-task/${group}/ to run it`,
          });
      } else if (/^work_log_\d+\.log$/.test(entry.name) && modifiedSince(path, startedAt)) {
        logs.push(path);
      }
    }
    for (const log of logs) {
      let text: string;
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        continue;
      }
      for (const locator of startsWithoutFinish(text))
        failures.push(
          `work log ${relative(ctx.workspace, log)}: START of attempt ${locator} has no FINISH row`,
        );
    }
  }
  return { failures, incomplete };
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function modifiedSince(file: string, since: number): boolean {
  try {
    return statSync(file).mtimeMs >= since - 1000;
  } catch {
    return false;
  }
}
