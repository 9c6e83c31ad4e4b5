import type { PermissionArgs, PermissionLevel } from '@switchyard/core';

/**
 * Copilot CLI's flags for a target's `permissions` (checked against 1.0.102 `--help`),
 * appended. "edit": its file-writing tool; "edit+shell": the shell tool too; "all": every
 * tool without confirmation.
 */
const FLAGS: Record<PermissionLevel, readonly string[]> = {
  edit: ['--allow-tool', 'write'],
  'edit+shell': ['--allow-tool', 'write', '--allow-tool', 'shell'],
  all: ['--allow-all-tools'],
};

export const copilotPermissionArgs: PermissionArgs = (level, argv) => [...argv, ...FLAGS[level]];
