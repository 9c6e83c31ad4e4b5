export type { CostBudget, PriceTable, TokenPrice } from './cost-schema.js';
export {
  type AgentCommitPolicy,
  type IsolationMode,
  type ResolvedIsolation,
  resolveIsolation,
  type WriteSetPolicy,
} from './isolation-mode.js';
export {
  agentCommitPolicyOf,
  type IsolationConfig,
  type IsolationSettings,
  isolationModeOf,
  isolationSettings,
} from './isolation-schema.js';
export { projectConfigJsonSchema } from './json-schema.js';
export {
  configFilesIn,
  hasConfigFile,
  loadProjectConfig,
  RECOMMENDED_CONFIG_FILE,
} from './load.js';
export type { NotifyConfig, NotifyEvent } from './notify-schema.js';
export { resolveCatalog } from './resolve-catalog.js';
export {
  type BwrapSandboxConfig,
  bwrapSandboxSchema,
  type SandboxConfig,
  sandboxForTarget,
} from './sandbox-schema.js';
export { defineConfig, type ProjectConfig, projectConfigSchema } from './schema.js';
export { resolveStoreSetting, STORE_ENV, type StoreSetting } from './store-setting.js';
