import type { AgentWritablePath } from '@switchyard/core';

/**
 * What Copilot CLI writes outside its working folder (found by running 1.0.102 offline against
 * the mock provider under strace with a fresh HOME, then checked inside the sandbox): its home
 * `$COPILOT_HOME` (default `~/.copilot`: config, session state and store, logs); its cache
 * `$COPILOT_CACHE_HOME` (default `$XDG_CACHE_HOME/copilot`, `~/.cache/copilot`), where the first
 * start unpacks about 235 MB of its package (`$COPILOT_PKG_CACHE_HOME` moves that part); and
 * a device id under `~/.cache/Microsoft/DeveloperTools`.
 */
export function copilotSandboxWritable(
  env: Readonly<Record<string, string | undefined>>,
): AgentWritablePath[] {
  const cache = env.XDG_CACHE_HOME || '~/.cache';
  const paths: AgentWritablePath[] = [
    { path: env.COPILOT_HOME || '~/.copilot', kind: 'dir' },
    { path: env.COPILOT_CACHE_HOME || `${cache}/copilot`, kind: 'dir' },
    { path: `${cache}/Microsoft/DeveloperTools`, kind: 'dir' },
  ];
  if (env.COPILOT_PKG_CACHE_HOME) paths.push({ path: env.COPILOT_PKG_CACHE_HOME, kind: 'dir' });
  return paths;
}
