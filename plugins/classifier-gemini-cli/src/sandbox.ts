import type { AgentWritablePath } from '@switchyard/core';

/**
 * What Gemini CLI writes outside its working folder (found by running 0.61.0 against the mock
 * provider under strace with a fresh HOME, then checked inside the sandbox): `.gemini` in its
 * home (`$GEMINI_CLI_HOME`, else HOME): chats, history, logs, `projects.json` (rewritten through
 * a temp file in the same folder).
 */
export function geminiCliSandboxWritable(
  env: Readonly<Record<string, string | undefined>>,
): AgentWritablePath[] {
  const home = env.GEMINI_CLI_HOME;
  return [{ path: home ? `${home.replace(/\/+$/, '')}/.gemini` : '~/.gemini', kind: 'dir' }];
}
