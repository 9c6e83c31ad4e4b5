import { parseByteSize } from '@switchyard/utils';
import { z } from 'zod';
import type { AgentCommitPolicy, IsolationMode } from './isolation-mode.js';

const mode = z.enum(['worktree', 'none']);

const byteSize = z.union([
  z.number().int().positive(),
  z.string().refine((s) => (parseByteSize(s) ?? 0) > 0, {
    message: 'not a size',
    params: {
      hint: 'write bytes, or a number and a unit: MB, GB (1000-based), MiB, GiB (e.g. "20GB")',
    },
  }),
]);

/** A workspace-relative file or glob: no absolute path, no `..`, nothing under `.git`. */
const copyEntry = z
  .string()
  .min(1)
  .refine(
    (p) =>
      !p.startsWith('/') &&
      !/^[A-Za-z]:[\\/]/.test(p) &&
      !p.split(/[\\/]/).some((part) => part === '..' || part === '.git'),
    {
      message: 'not a workspace-relative file or glob',
      params: {
        hint: 'name files inside the workspace, e.g. ".env" or "config/local.*" (no "..", no absolute path, nothing under .git)',
      },
    },
  );

const settingsObject = z.strictObject({
  mode: mode
    .optional()
    .describe('"worktree" (the default in a git repository) or "none" (the shared workspace).'),
  agentCommits: z
    .enum(['warn', 'refuse'])
    .default('warn')
    .describe(
      'Commits an agent makes in its worktree: "warn" = squashed into the task\'s one commit, with a warning in the work log and evidence; "refuse" = a correction asking the agent to undo them.',
    ),
  setup: z
    .array(z.array(z.string().min(1)).min(1))
    .default([])
    .describe(
      'Commands run in each new task worktree, in order, before its first agent: each an argv array run without a shell (write ["sh", "-c", "…"] for one), e.g. [["pnpm", "install", "--frozen-lockfile", "--prefer-offline"]]. A failing one blocks the task with its output; `switchyard retry` runs the set-up again.',
    ),
  setupTimeoutSeconds: z
    .number()
    .int()
    .positive()
    .default(1800)
    .describe(
      'Longest time one set-up command may run before it is stopped (and the task blocked).',
    ),
  copy: z
    .array(copyEntry)
    .default([])
    .describe(
      'Files git ignores (or globs of them) copied from the workspace into each new worktree before the set-up, e.g. [".env", "config/local.*"]: copies, reflinked where the file system can, never committed.',
    ),
  dir: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Folder holding the task worktrees as <repository id>/<group>/<task> (absolute, or relative to the workspace). Default $XDG_CACHE_HOME/switchyard/worktrees (~/.cache when unset): outside the repository, so tools run on the source never see tasks' unfinished work.",
    ),
  maxDiskBytes: byteSize
    .optional()
    .describe(
      'Disk the task worktrees may use together (bytes, or "20GB"): while they use more, no task starts a new worktree (it waits, and status says why) until archives or `switchyard clean` free some.',
    ),
});

/**
 * The project config's `isolation`: a mode (`"worktree"`, `"none"`), or the mode with the
 * worktrees' set-up, copied files, folder and disk cap.
 */
export const isolationConfigSchema = z
  .union([mode, settingsObject])
  .describe(
    'Where agents work: "worktree" = a git worktree per task (the default in a git repository), "none" = the shared workspace (the default outside git); or {mode, agentCommits, setup, copy, dir, maxDiskBytes} to set worktrees up.',
  );

/** `isolation` as written in the project config. */
export type IsolationConfig = z.output<typeof isolationConfigSchema>;

/** The project config's `isolation`, normalized. */
export interface IsolationSettings {
  /** Undefined: chosen by whether the workspace is in a git repository. */
  mode: IsolationMode | undefined;
  setup: string[][];
  setupTimeoutMs: number;
  copy: string[];
  dir: string | undefined;
  maxDiskBytes: number | undefined;
}

/** {@link IsolationSettings} of a config value (a plain mode string, an object, or nothing). */
export function isolationSettings(config: IsolationConfig | undefined): IsolationSettings {
  const object = typeof config === 'object' ? config : undefined;
  const cap = object?.maxDiskBytes;
  return {
    mode: typeof config === 'string' ? config : object?.mode,
    setup: object?.setup ?? [],
    setupTimeoutMs: (object?.setupTimeoutSeconds ?? 1800) * 1000,
    copy: object?.copy ?? [],
    dir: object?.dir,
    maxDiskBytes: typeof cap === 'string' ? parseByteSize(cap) : cap,
  };
}

/** The mode of a config `isolation` (undefined: the default for the workspace). */
export function isolationModeOf(config: IsolationConfig | undefined): IsolationMode | undefined {
  return typeof config === 'object' ? config.mode : config;
}

/** The agent-commit policy of a config `isolation` (default "warn"). */
export function agentCommitPolicyOf(config: IsolationConfig | undefined): AgentCommitPolicy {
  return (typeof config === 'object' ? config.agentCommits : undefined) ?? 'warn';
}
