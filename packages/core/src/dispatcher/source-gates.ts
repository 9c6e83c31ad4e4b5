import type { DispatchContext, TaskRuntime } from './context.js';

/** What a check on the source tree reports (the shape of the isolation's `SourceCheck`). */
export interface SourceGateResult {
  ok: boolean;
  detail?: string;
}

/**
 * HOOK POINT for project-level `source` gates. Called by the apply stage once the task's
 * commit has landed on the source branch and the plan's definition of done passed there,
 * with `sourceDir` = the source workspace (the user's checkout), while the apply lock is
 * held and before the apply is recorded as verified. Returning `{ ok: false, detail }`
 * rolls back exactly the task's commit and sends `detail` to the worker as a correction
 * (or blocks the task when its apply budget is spent), like a failed definition of done.
 *
 * No project gates exist yet: it passes. Project config `gates` (run on the source) plugs in
 * here.
 */
export async function runSourceGates(
  _ctx: DispatchContext,
  _rt: TaskRuntime,
  _sourceDir: string,
): Promise<SourceGateResult> {
  return { ok: true };
}
