import type { PermissionArgs, PermissionLevel } from '@switchyard/core';

/**
 * Codex's flags for a target's `permissions` (checked against 0.171.0 `exec --help`), put
 * right after `exec`: `exec resume` takes no `--sandbox` of its own. In `exec` Codex never
 * asks; the sandbox decides what its commands may do. "edit": the workspace is writable
 * (commands run sandboxed, offline); "edit+shell": commands may also reach the network;
 * "all": no sandbox at all.
 */
const FLAGS: Record<PermissionLevel, readonly string[]> = {
  edit: ['--sandbox', 'workspace-write'],
  'edit+shell': [
    '--sandbox',
    'workspace-write',
    '-c',
    'sandbox_workspace_write.network_access=true',
  ],
  all: ['--dangerously-bypass-approvals-and-sandbox'],
};

export const codexPermissionArgs: PermissionArgs = (level, argv) => {
  const exec = argv.indexOf('exec');
  if (exec < 0) return [...argv, ...FLAGS[level]];
  return [...argv.slice(0, exec + 1), ...FLAGS[level], ...argv.slice(exec + 1)];
};
