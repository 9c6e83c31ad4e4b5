import type { AgentWritablePath } from '@switchyard/core';

/**
 * What Claude Code writes outside its working folder (found by running 2.1.332 against the
 * mock provider under strace with a fresh HOME, then checked inside the sandbox): its config
 * folder (sessions, projects, shell snapshots, backups), `$CLAUDE_CONFIG_DIR` when set, and
 * `~/.claude.json`. It rewrites `~/.claude.json` through a temp file and a lock folder next to
 * it in HOME, which a sandbox cannot allow without making HOME writable: inside one those
 * updates (start-up counters, per-folder trust) fail and are skipped; the turn and the
 * sessions native resume needs are not affected. Its own temp files go to /tmp (private).
 */
export function claudeCodeSandboxWritable(
  env: Readonly<Record<string, string | undefined>>,
): AgentWritablePath[] {
  if (env.CLAUDE_CONFIG_DIR) return [{ path: env.CLAUDE_CONFIG_DIR, kind: 'dir' }];
  return [
    { path: '~/.claude', kind: 'dir' },
    { path: '~/.claude.json', kind: 'file' },
  ];
}
