import { hostname } from 'node:os';
import { agentCommitPolicyOf } from '@switchyard/config';
import { type RunEvent, type Store, SwitchyardError } from '@switchyard/core';
import type { DispatcherOptions } from '@switchyard/engine';
import type { WorkspaceLock } from '@switchyard/store-fs';
import { openFsStore } from '@switchyard/store-fs';
import { type AgentVersion, versionsByTarget } from './agent-versions.js';
import { configuredEngineOptions } from './engine-options.js';
import { runGateCommand } from './gate-runner.js';
import type { LiveRunOptions } from './live-run-options.js';
import type { RunSetup } from './live-run-setup.js';
import { cappedParallel } from './plan-concurrency.js';
import { openRunIsolation, type RunIsolation } from './run-isolation.js';
import type { RunStop } from './run-stop-signals.js';
import { publishTasks, type SharedStore, sharedIsolation } from './store/shared-backlog.js';

/**
 * The run's worktree isolation. Worktree records and apply journals describe this machine's
 * worktrees and checkout: on a shared store, whose scope is every clone of the repository, they
 * stay in this workspace's file store (no other machine's recovery may take this apply for its
 * own); there the isolation pushes each task's commit, and the in-scope tasks are published.
 */
export async function openLiveIsolation(
  workspace: string,
  setup: RunSetup,
  store: Store,
  shared: SharedStore | undefined,
  opts: LiveRunOptions,
): Promise<RunIsolation> {
  const isolation = await openRunIsolation(
    workspace,
    setup.config.isolation,
    shared ? openFsStore({ workspace }) : store,
  );
  if (!shared) return isolation;
  if (!isolation.isolation)
    throw new SwitchyardError(
      'SY_STORE_SCOPE',
      `A run on the shared store ${store.location} needs worktree isolation (each task's commit is pushed to ${shared.target.remote}/${shared.target.branch}); this workspace runs with isolation "none".`,
      { hint: 'Remove `"isolation": "none"` from the project config, or run without --store.' },
    );
  const holder = `${hostname()}/${process.pid}/apply`;
  isolation.isolation = await sharedIsolation(isolation.isolation, shared, holder);
  const { published, existing } = await publishTasks(
    shared,
    setup.model.tasks,
    opts.taskGroup,
    holder,
  );
  if (!opts.json)
    process.stdout.write(
      `backlog ${shared.scope} on ${store.location}: ${published} task(s) published, ${existing} already there\n`,
    );
  return isolation;
}

/** What a live run hands the dispatcher, beside its setup. */
export interface LiveDispatch {
  workspace: string;
  store: Store;
  shared: SharedStore | undefined;
  lock: WorkspaceLock;
  opts: LiveRunOptions;
  isolation: RunIsolation;
  sourceGuard: DispatcherOptions['sourceGuard'] | undefined;
  versions: AgentVersion[];
  stop: RunStop;
  onEvent: (event: RunEvent) => void;
}

/** The dispatcher's options: the run's flags over the project config, isolation and sandbox. */
export function dispatcherOptions(setup: RunSetup, run: LiveDispatch): DispatcherOptions {
  const { config, catalog, plugins, prompts, sandbox } = setup;
  const { opts, isolation, shared, sourceGuard } = run;
  return {
    workspace: run.workspace,
    store: run.store,
    ...(shared ? { backlog: shared.backlog, leaseMs: shared.leaseMs } : {}),
    catalog,
    ...configuredEngineOptions(config),
    maxParallel: cappedParallel(opts.maxParallel ?? config.maxParallel, opts.planMaxConcurrency),
    ...(opts.taskGroup ? { taskGroup: opts.taskGroup } : {}),
    ...(opts.retryBlocked ? { retryBlocked: true } : {}),
    ...(opts.retryTasks ? { retryTasks: opts.retryTasks } : {}),
    ...(opts.with ? { runWith: opts.with } : {}),
    plugins,
    runCommand: runGateCommand,
    prompts,
    onEvent: run.onEvent,
    signal: run.stop.abort.signal,
    abortApply: run.stop.abortApply.signal,
    ...(opts.control ? { control: opts.control } : {}),
    lock: run.lock,
    ...(isolation.isolation
      ? {
          isolation: isolation.isolation,
          writeSetPolicy: config.writeSet,
          worktreeSetup: {
            commands: isolation.settings.setup,
            timeoutMs: isolation.settings.setupTimeoutMs,
          },
          ...(isolation.settings.maxDiskBytes
            ? { worktreeDiskCap: isolation.settings.maxDiskBytes }
            : {}),
          agentCommitPolicy: agentCommitPolicyOf(config.isolation),
        }
      : {}),
    ...(sourceGuard ? { sourceGuard } : {}),
    agentVersions: versionsByTarget(run.versions),
    sourceIsWorkingTree: !isolation.isolation,
    ...(sandbox.command
      ? {
          sandbox: {
            config: config.sandbox,
            targets: config.sandboxTargets,
            command: sandbox.command,
          },
        }
      : {}),
  };
}
