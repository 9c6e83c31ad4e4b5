import type { AgentWritablePath } from '@switchyard/core';

/**
 * What Qwen Code writes outside its working folder (found by running 0.24.4 against the mock
 * provider under strace with a fresh HOME, then checked inside the sandbox): its global folder
 * `$QWEN_HOME` (default `~/.qwen`): chats, memories, usage, settings rewritten through a temp
 * file, extension store; and `$QWEN_RUNTIME_DIR` when set (its runtime files move there).
 */
export function qwenCodeSandboxWritable(
  env: Readonly<Record<string, string | undefined>>,
): AgentWritablePath[] {
  const paths: AgentWritablePath[] = [{ path: env.QWEN_HOME || '~/.qwen', kind: 'dir' }];
  if (env.QWEN_RUNTIME_DIR) paths.push({ path: env.QWEN_RUNTIME_DIR, kind: 'dir' });
  return paths;
}
