import type { RunnerPlugin } from './runner-types.js';
import type { ClassifierPlugin, TranscriptPlugin } from './types.js';

/** Any plugin switchyard loads. */
export type SwitchyardPlugin = RunnerPlugin | ClassifierPlugin | TranscriptPlugin;

/** The plugin kinds. */
export type PluginKind = SwitchyardPlugin['kind'];

/** What a plugin module may export (default export or the module itself): one plugin, an
 * array of plugins (e.g. a classifier plus its transcript formatter), or a factory of either
 * that takes the options from the config entry `['pkg', options]`. */
export type PluginExport<O = never> =
  | SwitchyardPlugin
  | readonly SwitchyardPlugin[]
  | ((options: O) => SwitchyardPlugin | readonly SwitchyardPlugin[]);

/** Typed identity for any plugin object. */
export const definePlugin = <P extends SwitchyardPlugin>(plugin: P): P => plugin;

/** Typed identity for a runner plugin (`kind` is filled in). */
export const defineRunner = <O = unknown>(
  plugin: Omit<RunnerPlugin<O>, 'kind'>,
): RunnerPlugin<O> => ({
  kind: 'runner',
  ...plugin,
});

/** Typed identity for a classifier plugin (`kind` is filled in). */
export const defineClassifier = <O = unknown>(
  plugin: Omit<ClassifierPlugin<O>, 'kind'>,
): ClassifierPlugin<O> => ({ kind: 'classifier', ...plugin });

/** Typed identity for a transcript plugin (`kind` is filled in). */
export const defineTranscript = (plugin: Omit<TranscriptPlugin, 'kind'>): TranscriptPlugin => ({
  kind: 'transcript',
  ...plugin,
});
