import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import {
  BUILTIN_PLUGINS,
  configuredEngineOptions,
  createRunRenderer,
  exitCodeFor,
  runGateCommand,
} from '@switchyard/cli';
import { loadProjectConfig, resolveCatalog } from '@switchyard/config';
import {
  type RunEvent,
  type Store,
  SwitchyardError,
  stateDir,
  type TaskState,
} from '@switchyard/core';
import {
  buildRetro,
  type DispatcherPlugins,
  type DispatchResult,
  loadPromptTemplates,
  runDispatcher,
  writeRetroFile,
} from '@switchyard/engine';
import { loadPlugins, PluginSet } from '@switchyard/runner-kit';
import {
  acquireWorkspaceLock,
  formatWorkLogRow,
  openFsStore,
  WORK_LOG_HEADER,
  type WorkspaceLock,
} from '@switchyard/store-fs';
import { createMemoryStore, type MemoryStore } from '@switchyard/store-memory';
import { assetPath, type Clock } from '@switchyard/utils';
import { inProcessRunner } from './in-process-runner.js';

/** What {@link runEngine} runs: a workspace folder and its catalog file (a test `Workspace`). */
export interface EngineWorkspace {
  dir: string;
  catalogFile: string;
}

/** The flags of `switchyard run` the harness takes (as the CLI passes them to the engine). */
export interface EngineRunOptions {
  taskGroup?: string;
  maxParallel?: number;
  retryBlocked?: boolean;
  retryTasks?: string[];
  with?: string;
  /** The store of an earlier run on this workspace (a second run continues from its facts);
   * default a new memory store. */
  store?: MemoryStore;
  /** The engine's clock (default the system's); a new store's leases expire by it too. */
  clock?: Clock;
  /** Aborting it is the run's interrupt (SIGINT in the CLI). */
  signal?: AbortSignal;
  /** Sees each event as the run emits it (a test that interrupts the run at a point). */
  onEvent?: (event: RunEvent) => void;
}

/** How an in-process run ended, with what the CLI would have shown. */
export interface EngineRun {
  /** The CLI's exit code for this run (2 for invalid input, as `exitCodeFor` maps errors). */
  code: number;
  /** Undefined when the engine refused to start (`error` says why). */
  result: DispatchResult | undefined;
  error?: unknown;
  /** The lines the CLI's run renderer prints for the run's events, then its summary. */
  stdout: string;
  /** This run's events, in order. */
  events: Array<RunEvent & Record<string, unknown>>;
  store: MemoryStore;
}

const cliDir = dirname(createRequire(import.meta.url).resolve('@switchyard/cli'));

/** The built-in classifiers and transcripts, as the CLI loads them, with every agent started in
 * this process by {@link inProcessRunner}. */
async function enginePlugins(): Promise<DispatcherPlugins & { dispose(): Promise<void> }> {
  const set = new PluginSet(
    await loadPlugins({ entries: [], builtins: BUILTIN_PLUGINS, fallbackDir: cliDir }),
  );
  const runner = inProcessRunner();
  return {
    runnerFor: (_format, needs) => {
      if (needs?.nativeSession)
        throw new Error('native sessions need a real process: test them end to end');
      return runner;
    },
    classifiersFor: (agent) => set.classifiersFor(agent),
    transcriptFor: (agent) => set.transcriptFor(agent),
    isRetryLineFor: (agent) => set.isRetryLineFor(agent),
    dispose: () => set.dispose(),
  };
}

/**
 * Runs the dispatcher in this process on a test workspace: its project config and catalog as
 * `switchyard run` reads them, a memory store, the fake agents' scenarios played by the
 * in-process runner. No agent process is started; gate commands run as the CLI runs them. The
 * workspace's own files (plans, archive, attempt captures) are written as a real run writes
 * them.
 */
export async function runEngine(
  ws: EngineWorkspace,
  options: EngineRunOptions = {},
): Promise<EngineRun> {
  const { clock } = options;
  // Leases expire by the engine's clock, a fake one included.
  const store =
    options.store ?? createMemoryStore(clock ? { now: () => clock.now().getTime() } : {});
  const run = await engineRun(ws, options, store);
  return { ...run, store };
}

/** How {@link runEngineOnFiles} ended: as {@link EngineRun}, its facts in the workspace's files. */
export type FileEngineRun = Omit<EngineRun, 'store'>;

/**
 * {@link runEngine} on the workspace's file store, as `switchyard run` keeps it: under the
 * workspace lock, the store exclusive, closed when the run ends, then the run's retrospective
 * written. What the CLI's readers show (`status`, `resolve`, `retro`, run in this process by
 * `cli()` of ./cli-in-process.ts) and the state files are a spawned run's; only the agents
 * are played in this process. The lock holds this test process's pid for the run's length.
 */
export async function runEngineOnFiles(
  ws: EngineWorkspace,
  options: Omit<EngineRunOptions, 'store'> = {},
): Promise<FileEngineRun> {
  const { clock } = options;
  const lock = acquireWorkspaceLock({ workspace: ws.dir });
  const store = openFsStore({
    workspace: ws.dir,
    exclusive: true,
    ...(clock ? { now: () => clock.now().getTime() } : {}),
  });
  try {
    const run = await engineRun(ws, options, store, lock);
    const runId = run.events.find((e) => e.type === 'run.started')?.runId;
    if (run.result && typeof runId === 'string') {
      const { config } = await loadProjectConfig(ws.dir);
      const all = (await store.events.read()).events.map((stored) => stored.event);
      writeRetroFile(ws.dir, buildRetro(all, { runId }, config.prices));
    }
    return run;
  } finally {
    await store.close();
    lock.release();
  }
}

async function engineRun(
  ws: EngineWorkspace,
  options: Omit<EngineRunOptions, 'store'>,
  store: Store,
  lock?: WorkspaceLock,
): Promise<Omit<EngineRun, 'store'>> {
  const events: EngineRun['events'] = [];
  let stdout = '';
  const out = {
    isTTY: false,
    write(text: string) {
      stdout += text;
      return true;
    },
  };
  const renderer = createRunRenderer(out as unknown as NodeJS.WriteStream);
  const plugins = await enginePlugins();
  const finish = (code: number, result?: DispatchResult, error?: unknown) => ({
    code,
    result,
    ...(error !== undefined ? { error } : {}),
    stdout: stripVTControlCharacters(stdout),
    events,
  });
  try {
    const { config, filepath } = await loadProjectConfig(ws.dir);
    const catalog = await resolveCatalog({
      flagPath: resolve(ws.catalogFile),
      cwd: ws.dir,
      checkExecutables: false,
    });
    const configDir = filepath ? dirname(filepath) : undefined;
    const prompts = loadPromptTemplates({
      templatesDir: assetPath('prompts'),
      overrides: config.prompts,
      ...(configDir ? { configDir } : {}),
      ...(filepath ? { configFile: filepath } : {}),
    });
    const result = await runDispatcher({
      workspace: ws.dir,
      store,
      catalog,
      ...configuredEngineOptions(config),
      maxParallel: options.maxParallel ?? config.maxParallel,
      ...(options.taskGroup ? { taskGroup: options.taskGroup } : {}),
      ...(options.retryBlocked ? { retryBlocked: true } : {}),
      ...(options.retryTasks ? { retryTasks: options.retryTasks } : {}),
      ...(options.with ? { runWith: options.with } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(lock ? { lock } : {}),
      plugins,
      runCommand: runGateCommand,
      prompts,
      onEvent: (event) => {
        events.push(event as EngineRun['events'][number]);
        renderer.onEvent(event);
        options.onEvent?.(event);
      },
      sourceIsWorkingTree: true,
    });
    renderer.summary(result, {
      archive: join(ws.dir, 'agent-task', 'archive'),
      state: stateDir(ws.dir),
    });
    return finish(result.exitCode, result);
  } catch (error) {
    stdout += refusal(error);
    return finish(exitCodeFor(error), undefined, error);
  } finally {
    await plugins.dispose();
  }
}

/** What the CLI says of an error that stopped the run: its message, each problem and hint. */
function refusal(error: unknown): string {
  if (!SwitchyardError.is(error)) return `${String(error)}\n`;
  const where = [error.file, error.line, error.path].filter((x) => x !== undefined).join(':');
  const lines = [`${error.code}: ${where ? `${where}: ` : ''}${error.message}`];
  for (const p of error.problems) {
    const where = [p.file, p.line, p.path].filter((x) => x !== undefined).join(':');
    lines.push(
      `  ${p.code} ${where ? `${where}: ` : ''}${p.message}${p.hint ? ` (${p.hint})` : ''}`,
    );
  }
  if (error.hint) lines.push(`  hint: ${error.hint}`);
  return `${lines.join('\n')}\n`;
}

/** Every event the store holds (all runs on it), in order. */
export async function storedEvents(
  store: MemoryStore,
): Promise<Array<RunEvent & Record<string, unknown>>> {
  const all: Array<RunEvent & Record<string, unknown>> = [];
  let after = 0;
  for (;;) {
    const page = await store.events.read({ after });
    if (page.events.length === 0) return all;
    all.push(...(page.events.map((e) => e.event) as Array<RunEvent & Record<string, unknown>>));
    after = page.next;
  }
}

/** The state of each task the store holds, by task id. */
export async function taskStates(store: MemoryStore): Promise<Map<string, TaskState>> {
  const list = await store.tasks.list();
  return new Map(list.map((entry) => [entry.value.task, entry.value]));
}

/** A group's work log as WORK_LOG.md renders the store's rows. */
export async function workLogText(store: MemoryStore, group: string): Promise<string> {
  const rows = await store.workLog.read(group);
  return `${WORK_LOG_HEADER(group)}${rows.map(formatWorkLogRow).join('')}`;
}

/** The `n`th archived work log of a group (work_log_<n>.log in the file store), as rendered. */
export async function archivedWorkLogText(
  store: MemoryStore,
  group: string,
  n: number,
): Promise<string> {
  const rows = store.data.archivedWorkLogs.get(group)?.[n - 1];
  if (!rows) throw new Error(`no archived work log ${n} of group ${group}`);
  return `${WORK_LOG_HEADER(group)}${rows.map(formatWorkLogRow).join('')}`;
}
