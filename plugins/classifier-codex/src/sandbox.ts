import type { AgentWritablePath } from '@switchyard/core';

/**
 * What Codex writes outside its working folder (found by running 0.171.0 against the mock
 * provider under strace with a fresh HOME, then checked inside the sandbox): everything goes to
 * `$CODEX_HOME` (default `~/.codex`): sessions, SQLite state and logs, shell snapshots,
 * skills, its own `.tmp`.
 */
export function codexSandboxWritable(
  env: Readonly<Record<string, string | undefined>>,
): AgentWritablePath[] {
  return [{ path: env.CODEX_HOME || '~/.codex', kind: 'dir' }];
}
