import { z } from 'zod';

/**
 * Credential folders and files masked in every sandbox unless the config's `hide` says
 * otherwise: what an agent never needs and must never read or send anywhere.
 */
export const DEFAULT_HIDDEN_PATHS = [
  '~/.ssh',
  '~/.aws',
  '~/.gnupg',
  '~/.config/gh',
  '~/.azure',
  '~/.config/gcloud',
  '~/.kube',
  '~/.docker',
  '~/.password-store',
  '~/.local/share/keyrings',
  '~/.netrc',
  '~/.git-credentials',
  '~/.pypirc',
  '~/.pgpass',
] as const;

const sandboxPath = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/') || p === '~' || p.startsWith('~/'), {
    message: 'must be an absolute path or start with "~/"',
  });

/** `sandbox: { mode: "bwrap", … }`: every attempt runs under bubblewrap. */
export const bwrapSandboxSchema = z
  .strictObject({
    mode: z.literal('bwrap'),
    writable: z
      .array(sandboxPath)
      .default([])
      .describe(
        'More paths the agents may write (absolute or "~/…"), besides their worktree, attempt folder, task folder, a private /tmp and the paths their agent plugin declares.',
      ),
    hide: z
      .array(sandboxPath)
      .default([...DEFAULT_HIDDEN_PATHS])
      .describe(
        'Paths masked inside the sandbox (a folder becomes an empty tmpfs, a file reads as empty). Replaces the default list of credential folders (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, …) when given.',
      ),
    network: z
      .enum(['host', 'none'])
      .default('host')
      .describe(
        '"host": the machine\'s network (agents reach their provider); "none": loopback only.',
      ),
  })
  .describe(
    'The attempt runs under bubblewrap: the file system read-only except what it must write.',
  );

/** `"none"` (no sandbox) or a bwrap sandbox. */
export const sandboxSchema = z
  .union([z.literal('none'), bwrapSandboxSchema])
  .describe(
    'Contain every agent attempt: "none" (the default), or { mode: "bwrap", writable, hide, network }: read-only file system except its worktree, attempt folder, task folder, a private /tmp and the paths its agent CLI writes; credential folders hidden.',
  );

/** A bwrap sandbox config with its defaults applied. */
export type BwrapSandboxConfig = z.output<typeof bwrapSandboxSchema>;
/** A sandbox config with its defaults applied. */
export type SandboxConfig = z.output<typeof sandboxSchema>;

/** The sandbox of one target: its override in `sandboxTargets`, else the project's `sandbox`. */
export function sandboxForTarget(
  config: { sandbox: SandboxConfig; sandboxTargets: Record<string, SandboxConfig> },
  targetId: string,
): SandboxConfig {
  return config.sandboxTargets[targetId] ?? config.sandbox;
}
