/**
 * Plugins every `switchyard` loads before the project's own (`plugins` in the config): the
 * runners for each output format and native sessions, and the classifiers (agent-specific
 * ones, then the generic one that serves every agent last). The CLI depends on each.
 */
export const BUILTIN_PLUGINS: readonly string[] = [
  '@switchyard/runner-text',
  '@switchyard/runner-jsonl',
  '@switchyard/runner-native-session',
  '@switchyard/classifier-claude-code',
  '@switchyard/classifier-codex',
  '@switchyard/classifier-copilot',
  '@switchyard/classifier-gemini-cli',
  '@switchyard/classifier-qwen-code',
  '@switchyard/classifier-generic',
];
