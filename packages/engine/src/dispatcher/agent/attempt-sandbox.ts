import { homedir } from 'node:os';
import { sandboxForTarget } from '@switchyard/config';
import { type RunnerPlugin, type SandboxSpec, SwitchyardError } from '@switchyard/core';
import { planSandbox } from '@switchyard/runner-kit';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import type { AttemptInputs } from './attempt-spec.js';

/**
 * The sandbox of one attempt, or undefined when its target runs unsandboxed. The mount table
 * comes from the task's worktree (or, under isolation "none", its write set), its attempt and
 * task folders, what the agent plugin says its CLI writes (given the agent's environment) and
 * the config's `writable`/`hide`. A runner that cannot sandbox is refused: a sandboxed target
 * never runs uncontained.
 */
export function attemptSandbox(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: AttemptInputs,
  env: Readonly<Record<string, string>>,
  argv: readonly string[],
  runner: RunnerPlugin,
): SandboxSpec | undefined {
  const options = ctx.options.sandbox;
  if (!options) return undefined;
  const config = sandboxForTarget(
    { sandbox: options.config, sandboxTargets: options.targets },
    inputs.targetId,
  );
  if (config === 'none') return undefined;
  if (runner.sandbox !== true)
    throw new SwitchyardError(
      'SY_SANDBOX_UNAVAILABLE',
      `target ${inputs.targetId} is to run sandboxed, but its runner plugin ${runner.meta.name} cannot start an agent in a sandbox`,
      {
        hint: `use a runner built on @switchyard/runner-text (createRunner), or set "sandboxTargets": { "${inputs.targetId}": "none" } in the project config`,
      },
    );
  const agentEnv = { ...process.env, ...env };
  const workdir = workdirOf(ctx, rt);
  const worktree = rt.state.isolation?.workdir !== undefined && workdir !== ctx.workspace;
  return planSandbox({
    config,
    command: options.command,
    home: agentEnv.HOME || homedir(),
    workspace: ctx.workspace,
    stateDir: ctx.stateDir,
    workdir,
    worktree,
    ...(worktree
      ? {}
      : { writeSet: rt.task.writeSetAny ? 'any' : rt.task.writeSet.map((entry) => entry.path) }),
    attemptDir: inputs.attemptDir,
    taskDir: rt.task.dir,
    agentPaths: ctx.options.plugins.sandboxWritableFor?.(inputs.target.agent, agentEnv) ?? [],
    ...(argv[0] !== undefined ? { executable: argv[0] } : {}),
    arguments: argv.slice(1),
  });
}
