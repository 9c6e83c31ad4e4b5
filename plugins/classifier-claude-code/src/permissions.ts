import type { PermissionArgs, PermissionLevel } from '@switchyard/core';

/**
 * Claude Code's flags for a target's `permissions` (checked against 2.1.332 `--help`),
 * appended: its options may follow the prompt. "edit" accepts file edits; "edit+shell" also
 * lets the Bash tool run without asking; "all" skips every permission check (Claude Code
 * refuses that as root unless it runs in a sandbox it is told about: IS_SANDBOX=1).
 */
const FLAGS: Record<PermissionLevel, readonly string[]> = {
  edit: ['--permission-mode', 'acceptEdits'],
  'edit+shell': ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'],
  all: ['--dangerously-skip-permissions'],
};

export const claudeCodePermissionArgs: PermissionArgs = (level, argv) => [...argv, ...FLAGS[level]];
