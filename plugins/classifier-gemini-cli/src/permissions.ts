import type { PermissionArgs, PermissionLevel } from '@switchyard/core';

/**
 * Gemini CLI's flags for a target's `permissions` (checked against 0.61.0 `--help`),
 * appended. "edit": edit tools approved; "edit+shell": the shell tool too (`--allowed-tools`,
 * still honoured though the CLI calls it deprecated); "all": every tool (yolo).
 */
const FLAGS: Record<PermissionLevel, readonly string[]> = {
  edit: ['--approval-mode', 'auto_edit'],
  'edit+shell': ['--approval-mode', 'auto_edit', '--allowed-tools', 'run_shell_command'],
  all: ['--approval-mode', 'yolo'],
};

export const geminiCliPermissionArgs: PermissionArgs = (level, argv) => [...argv, ...FLAGS[level]];
