export {
  type IsolationConfig,
  type IsolationSettings,
  isolationConfigSchema,
  isolationSettings,
  parseByteSize,
} from './config-schema.js';
export {
  type AgentCommitPolicy,
  agentCommitPolicyOf,
  type IsolationMode,
  isolationModeOf,
  type ResolvedIsolation,
  resolveIsolation,
  type WriteSetPolicy,
} from './mode.js';
export {
  APPLY_STEPS,
  type ApplyJournal,
  type ApplyStep,
  applyJournalSchema,
  type WorktreeRecord,
  worktreeRecordSchema,
} from './schema.js';
export type {
  ApplyRequest,
  ApplyResult,
  CleanOptions,
  CleanReport,
  RecoveredApply,
  SourceCheck,
  WorkspaceIsolation,
  WorktreeListing,
  WriteSetReport,
} from './types.js';
