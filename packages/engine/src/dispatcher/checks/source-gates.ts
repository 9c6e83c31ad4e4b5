import { join } from 'node:path';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { runProjectGates } from './gate-check.js';
import { recordResults } from './stage-project-gates.js';

/** What a check on the source tree reports (the shape of the isolation's `SourceCheck`). */
export interface SourceGateResult {
  ok: boolean;
  detail?: string;
}

/**
 * The project's `source` gates (config `gates` with `on: "source"`) under worktree isolation.
 * Called by the apply stage once the task's commit has landed on the source branch and the
 * plan's definition of done passed there, with `sourceDir` = the source workspace, while the
 * apply lock is held and before the apply is recorded as verified. `{ ok: false, detail }`
 * rolls back exactly the task's commit and sends `detail` to the worker as a correction (or
 * blocks the task when its apply budget is spent), like a failed definition of done. Under
 * isolation `none` these gates run in the project-gates stage instead (the working tree is
 * the source there).
 */
export async function checkSourceAfterApply(
  ctx: DispatchContext,
  rt: TaskRuntime,
  sourceDir: string,
): Promise<SourceGateResult> {
  const gates = (ctx.options.projectGates ?? []).filter((g) => g.on === 'source');
  if (gates.length === 0) return { ok: true };
  const runs = await runProjectGates(ctx, rt, gates, {
    cwdOf: () => sourceDir,
    base: sourceDir,
    outputDir: join(ctx.stateDir, 'gates', rt.id),
    afterApply: true,
    // Inside an apply: only an abort of the apply stops them (a first stop lets it finish).
    signal: ctx.applyAbort,
  });
  // Aborted before every gate ran: the commit is not verified, so it does not stay.
  if (!runs) return { ok: false, detail: 'the apply was aborted before the source gates finished' };
  recordResults(
    rt,
    runs.map((r) => r.result),
  );
  const failed = runs.filter((r) => !r.result.passed);
  if (failed.length === 0) return { ok: true };
  return {
    ok: false,
    detail: failed
      .flatMap((r) => [
        `project gate ${r.result.name} (\`${r.command}\`) on the source: ${r.result.detail}`,
        ...r.tail.slice(-20),
        `output: ${r.result.output}`,
      ])
      .join('\n'),
  };
}
