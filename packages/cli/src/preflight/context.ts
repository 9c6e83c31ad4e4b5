import { isolationModeOf } from '@switchyard/config';
import type { TaskState } from '@switchyard/core';
import { openFsReader } from '@switchyard/store-fs/read';
import type { WorkspaceModel } from '@switchyard/tasks';
import { inGitRepository } from '../run-isolation.js';
import type { PreflightContext, PreflightTask } from './registry.js';

/** What the caller knows about the run when the checks are due. */
export interface PreflightInput
  extends Pick<
    PreflightContext,
    'workspace' | 'mode' | 'config' | 'maxParallel' | 'targets' | 'foundProblems' | 'env'
  > {
  /** The workspace's tasks; the scope is taken from them. */
  model?: WorkspaceModel;
  /** Or the tasks themselves (a YAML plan's, before its folders are written). */
  tasks?: readonly PreflightTask[];
  /** The persisted task states when the caller has read them already (else read here). */
  states?: readonly TaskState[];
  taskGroup?: string;
  retryBlocked?: boolean;
  retryTasks?: readonly string[];
  signal?: AbortSignal;
}

/**
 * The checks' view of a run: its isolation as resolved against git, and the tasks it may
 * work on (in the group, valid, not blocked unless retried), with their persisted state.
 */
export async function preflightContext(input: PreflightInput): Promise<PreflightContext> {
  const { model, config, workspace } = input;
  // Without git installed the run shares the workspace (openRunIsolation warns): no git checks.
  const git =
    isolationModeOf(config.isolation) === 'none'
      ? false
      : await inGitRepository(workspace).catch(() => false);
  const states = input.states
    ? new Map(input.states.map((s) => [s.task, s]))
    : await readStates(workspace);
  const retried = new Set(input.retryTasks ?? []);
  const tasks =
    input.tasks ??
    (model?.tasks ?? []).filter((t) => {
      if (input.taskGroup !== undefined && t.group !== input.taskGroup) return false;
      if (!t.valid) return false;
      const blocked = states.get(t.id)?.blocked !== undefined;
      return !blocked || input.retryBlocked === true || retried.has(t.id);
    });
  return {
    workspace,
    mode: input.mode,
    config,
    isolation: git ? 'worktree' : 'none',
    tasks,
    states,
    maxParallel: input.maxParallel,
    targets: input.targets,
    foundProblems: input.foundProblems,
    // No configuration pushes the source branch yet; the upstream check waits for one.
    pushes: false,
    env: input.env,
    ...(input.signal ? { signal: input.signal } : {}),
  };
}

/** Persisted task states by id; unreadable state is reported by the run itself, not here. */
async function readStates(workspace: string): Promise<Map<string, TaskState>> {
  try {
    const states = await openFsReader({ workspace }).tasks.list();
    return new Map(states.map(({ value }) => [value.task, value]));
  } catch {
    return new Map();
  }
}
