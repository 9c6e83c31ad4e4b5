import type { SessionYamlPlan } from '@switchyard/core';
import type { RunControl } from '@switchyard/engine';

/** Options of a live `switchyard run` (the flags after parsing). */
export interface LiveRunOptions {
  workspace?: string;
  executionCatalog?: string;
  taskGroup?: string;
  maxParallel?: number;
  retryBlocked?: boolean;
  /** `switchyard retry <task>…`: retry these blocked tasks. */
  retryTasks?: string[];
  with?: string;
  json?: boolean;
  /** Serve the browser monitor for the run (see `switchyard monitor`). */
  monitor?: boolean;
  /** The monitor is served by default (a YAML plan), not asked for: one that cannot start is
   * a warning, not a failure of the run. */
  monitorByDefault?: boolean;
  port?: number;
  /**
   * Runs under the workspace lock before the workspace is read (a YAML plan writes its task
   * folders here); returning false means there is nothing to run (exit 0).
   */
  prepare?: (workspace: string) => boolean;
  /** `switchyard resume <id>`: continue this session instead of starting a new one. */
  resumeSession?: string;
  /** A YAML plan's `execution.max_concurrency`: caps the run's max parallel, never raises it. */
  planMaxConcurrency?: number;
  /** A new session of a YAML plan: the plan as run, kept in the session's plan.json. */
  yamlPlan?: SessionYamlPlan;
  /** The monitor's hold on the run (its actions); one is made for `--monitor`. */
  control?: RunControl;
  /** `--store`: "file" or a postgres:// URL shared with other machines (see `openSharedStore`). */
  store?: string;
}
