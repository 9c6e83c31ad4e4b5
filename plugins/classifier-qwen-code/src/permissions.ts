import type { PermissionArgs, PermissionLevel } from '@switchyard/core';

/**
 * Qwen Code's flags for a target's `permissions` (checked against 0.24.4 `--help`), appended.
 * "edit": edits approved (`auto-edit`, spelled with a hyphen unlike Gemini CLI's); "edit+shell":
 * the shell tool too; "all": every tool (yolo).
 */
const FLAGS: Record<PermissionLevel, readonly string[]> = {
  edit: ['--approval-mode', 'auto-edit'],
  'edit+shell': ['--approval-mode', 'auto-edit', '--allowed-tools', 'run_shell_command'],
  all: ['--approval-mode', 'yolo'],
};

export const qwenCodePermissionArgs: PermissionArgs = (level, argv) => [...argv, ...FLAGS[level]];
