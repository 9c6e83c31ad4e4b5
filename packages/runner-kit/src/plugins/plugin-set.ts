import {
  type AgentWritablePath,
  type ClassifierPlugin,
  type OutputFormat,
  type RunnerPlugin,
  SwitchyardError,
  type TranscriptPlugin,
} from '@switchyard/core';
import { classifiersFor } from '../evidence/classify-evidence.js';
import type { LoadedPlugin } from './loader.js';
import { Registry } from './registry.js';

/** The loaded plugins, by kind, with the lookups the dispatcher needs. */
export class PluginSet {
  readonly runners = new Registry<RunnerPlugin>('runner');
  readonly classifiers = new Registry<ClassifierPlugin>('classifier');
  readonly transcripts = new Registry<TranscriptPlugin>('transcript');

  constructor(readonly loaded: readonly LoadedPlugin[]) {
    for (const { plugin } of loaded) {
      if (plugin.kind === 'runner') this.runners.register(plugin);
      else if (plugin.kind === 'classifier') this.classifiers.register(plugin);
      else this.transcripts.register(plugin);
    }
  }

  /** Classifiers for an agent: agent-specific first (load order), generic (`'*'`) last. */
  classifiersFor(agent: string): ClassifierPlugin[] {
    return classifiersFor(agent, this.classifiers.list());
  }

  /** The agent's transcript formatter: an agent-specific one, else a generic one. */
  transcriptFor(agent: string): TranscriptPlugin | undefined {
    const all = this.transcripts.list();
    return (
      all.find((t) => t.agents !== '*' && t.agents.includes(agent)) ??
      all.find((t) => t.agents === '*')
    );
  }

  /** A predicate that is true when any classifier serving the agent calls the line a retry. */
  isRetryLineFor(agent: string): (line: string) => boolean {
    const hooks = this.classifiersFor(agent).flatMap((c) =>
      c.isRetryLine ? [c.isRetryLine.bind(c)] : [],
    );
    return (line) => hooks.some((hook) => hook(line));
  }

  /**
   * The paths the agent's CLI writes outside its working folder (for its sandbox), from every
   * classifier serving it, given the agent's environment.
   */
  sandboxWritableFor(
    agent: string,
    env: Readonly<Record<string, string | undefined>>,
  ): AgentWritablePath[] {
    return this.classifiersFor(agent).flatMap((c) =>
      c.sandboxWritable ? [...c.sandboxWritable(env)] : [],
    );
  }

  /** The runner for a target: a native-session runner when asked for, else the last loaded
   * runner serving the format (so a user runner overrides a built-in one). */
  runnerFor(format: OutputFormat, needs: { nativeSession?: boolean } = {}): RunnerPlugin {
    const candidates = this.runners
      .list()
      .filter(
        (r) =>
          r.outputFormats.includes(format) && (!needs.nativeSession || r.nativeSession === true),
      );
    const runner = candidates.at(-1);
    if (!runner) {
      throw new SwitchyardError(
        'SY_PLUGIN_NOT_FOUND',
        `No runner plugin serves output format "${format}"${needs.nativeSession ? ' with native sessions' : ''}.`,
        {
          hint: 'Add a runner plugin (e.g. @switchyard/runner-jsonl) to `plugins` in the switchyard config.',
        },
      );
    }
    return runner;
  }

  /** Disposes every plugin that has a dispose hook. */
  async dispose(): Promise<void> {
    for (const { plugin } of this.loaded)
      if ('dispose' in plugin && plugin.dispose) await plugin.dispose();
  }
}
