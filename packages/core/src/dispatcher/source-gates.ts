import { join } from 'node:path';
import { runSourceGates } from '../gates/source-gates.js';
import type { DispatchContext, TaskRuntime } from './context.js';
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
  const outcome = await runSourceGates({
    gates,
    source: sourceDir,
    outputDir: join(ctx.stateDir, 'gates', rt.id),
    runCommand: ctx.options.runCommand,
    planLoop: rt.state.planLoop,
    now: () => ctx.now(),
    signal: ctx.signal,
  });
  recordResults(rt, outcome.results);
  for (const r of outcome.results)
    ctx.bus.emit({
      type: 'gate.finished',
      task: rt.id,
      planLoop: rt.state.planLoop,
      command: [...(gates.find((g) => g.name === r.name)?.command ?? [])],
      exitCode: r.exitCode,
      passed: r.passed,
      detail: `on the source: ${r.detail}`,
      gate: r.name,
      on: 'source',
    });
  if (outcome.passed) return { ok: true };
  return {
    ok: false,
    detail: outcome.failed
      .flatMap((r) => [
        `project gate ${r.result.name} (\`${r.command}\`) on the source: ${r.result.detail}`,
        ...r.tail.slice(-20),
        `output: ${r.result.output}`,
      ])
      .join('\n'),
  };
}
