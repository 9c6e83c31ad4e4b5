import { homedir } from 'node:os';
import { join } from 'node:path';
import { stateDir as stateDirOf } from '@switchyard/core/dry-run';

/** Where the file store keeps each kind of record (today's layout, unchanged). */
export interface FsLayout {
  /** Real path of the workspace root. */
  workspace: string;
  /** `<workspace>/agent-task/.switchyard`. */
  stateDir: string;
  /** `tasks/<group>/<task>.json`: task states. */
  tasksDir: string;
  /** `leases.json`: per-task leases. */
  leasesFile: string;
  /** `targets.json`: shared target cool-down/park state. */
  targetsFile: string;
  /** `store.lock`: the mutex of task, lease and target writes (when not exclusive). */
  storeLock: string;
  /** `events.jsonl`: the run event log. */
  eventsFile: string;
  /** `attempts/`: attempt capture folders, each with its `locator.json`. */
  attemptsDir: string;
  /** `sessions/<id>/`. */
  sessionsDir: string;
  /** `escalations/<group>/<task>.*.json`. */
  escalationsDir: string;
  /** `isolation/worktrees/<group>/<task>.json`: worktree records. */
  recordsDir: string;
  /** `isolation/apply/<group>/<task>.json`: apply journals. */
  journalsDir: string;
  /** Machine state (schedules): `$SWITCHYARD_STATE_HOME`, `$XDG_STATE_HOME/switchyard` or
   * `~/.local/state/switchyard`. */
  scheduleHome: string;
}

/**
 * The folder holding schedules: `$SWITCHYARD_STATE_HOME`, else `$XDG_STATE_HOME/switchyard`,
 * else `~/.local/state/switchyard`. Machine state, not workspace state: the daemon serves many.
 */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHYARD_STATE_HOME) return env.SWITCHYARD_STATE_HOME;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'switchyard');
  return join(homedir(), '.local', 'state', 'switchyard');
}

/** The layout of a workspace (given by its real path). */
export function fsLayout(workspace: string, scheduleHome = stateHome()): FsLayout {
  const stateDir = stateDirOf(workspace);
  return {
    workspace,
    stateDir,
    tasksDir: join(stateDir, 'tasks'),
    leasesFile: join(stateDir, 'leases.json'),
    targetsFile: join(stateDir, 'targets.json'),
    storeLock: join(stateDir, 'store.lock'),
    eventsFile: join(stateDir, 'events.jsonl'),
    attemptsDir: join(stateDir, 'attempts'),
    sessionsDir: join(stateDir, 'sessions'),
    escalationsDir: join(stateDir, 'escalations'),
    recordsDir: join(stateDir, 'isolation', 'worktrees'),
    journalsDir: join(stateDir, 'isolation', 'apply'),
    scheduleHome,
  };
}

/** `<dir>/<group>/<task><suffix>` for a task id `<group>/<task>`. */
export function taskFile(dir: string, task: string, suffix = '.json'): string {
  return `${join(dir, task)}${suffix}`;
}
