import type { Problem } from '@switchyard/core/dry-run';
import type { AdmissionStatus } from '../admission/admit.js';

/** Version of the `run --dry-run --json` document. Bumped on any incompatible change. */
export const DRY_RUN_SCHEMA_VERSION = 1;

/** Which target a stage would use now, and the route's candidates. */
export interface DryRunStage {
  /** The target that would run. Worker: the task's `target` pin, else `with` (a target id, or
   * the agent's first worker candidate), else the first candidate; review and red-team review:
   * their route's first candidate (see `not_worker`). */
  selected: string | null;
  /** Why that target: `pin`, `with`, `route`, or `none` (no catalog / no candidate). */
  selected_by: 'pin' | 'with' | 'route' | 'none';
  /** The order the stage tries targets in now: a pin or `--with` first, then the route's
   * other candidates (failover). */
  candidates: string[];
  /** The time window in force, when the route uses windows. */
  window?: { index: number; timezone: string; start: string; end: string };
  /** A review stage: the worker's target, left out of the review's candidates (a target never
   * reviews its own work while the route has another candidate). */
  not_worker?: string;
}

/** One task in the dry-run report. */
export interface DryRunTask {
  id: string;
  group: string;
  plan: string;
  plan_loop: number;
  in_scope: boolean;
  valid: boolean;
  route: string | null;
  /** Why the task has that route: `route: … in PLAN.md`, or the config routing rule that
   * turned its `complexity:` / `risk:` into it. */
  route_reason: string | null;
  /** Review mode its risk asks for (`red-team`), or null. */
  review: string | null;
  target: string | null;
  depends_on: string[];
  /** Admission status now (see AdmissionStatus). */
  status: AdmissionStatus;
  /** Why the dispatcher blocked the task (from its state), or null. */
  blocked: string | null;
  /** Dependencies still open (or blocked/invalid ones). */
  waiting_on: string[];
  /** Blocked tasks whose kept claim this task waits on (a shared workspace keeps it). */
  waiting_on_blocked_claim: string[];
  write_set: { path: string; line: number; note?: string; resolved?: string }[];
  /** Other tasks sharing a write-set path: never active at the same time as this one. */
  serialized_with: string[];
  /** By stage (`worker`, `review`, and `redteam` for a task with `review: red-team`). */
  stages: Record<string, DryRunStage>;
  checklist: { total: number; checked: number };
  definition_of_done: { command: string; argv: string[]; assertion: unknown } | null;
  problems: DryRunProblem[];
}

/** A problem as printed in the report. */
export interface DryRunProblem {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  file?: string;
  line?: number;
  column?: number;
  path?: string;
  /** The offending value (cut, a secret redacted: config problems). */
  value?: string;
  hint?: string;
  /** The exact command that fixes it (preflight problems). */
  fix?: string;
}

/** The whole `run --dry-run --json` document. */
export interface DryRunReport {
  schema_version: typeof DRY_RUN_SCHEMA_VERSION;
  kind: 'switchyard.dry-run';
  generated_at: string;
  workspace: string;
  options: {
    task_group: string | null;
    max_parallel: number;
    with: string | null;
    retry_blocked: boolean;
  };
  catalog: {
    valid: boolean;
    source: { kind: string; path?: string } | null;
    revision: string | null;
  };
  tasks: DryRunTask[];
  archived: { id: string; complete: boolean }[];
  collisions: { path: string; tasks: string[] }[];
  claims: { task: string; paths: string[]; since: string }[];
  admission: { admitted: string[]; active_stages: number; max_parallel: number };
  summary: {
    tasks: number;
    in_scope: number;
    admitted: number;
    waiting: number;
    invalid: number;
    errors: number;
    warnings: number;
  };
  /** Every problem: catalog, workspace, graph and plans. */
  problems: DryRunProblem[];
}

/** Converts a core problem to its report form. */
export function toDryRunProblem(p: Problem): DryRunProblem {
  const out: DryRunProblem = { code: p.code, severity: p.severity ?? 'error', message: p.message };
  if (p.file) out.file = p.file;
  if (p.line) out.line = p.line;
  if (p.line && p.column) out.column = p.column;
  if (p.path) out.path = p.path;
  if (p.value !== undefined) out.value = p.value;
  if (p.hint) out.hint = p.hint;
  if (p.fix) out.fix = p.fix;
  return out;
}
