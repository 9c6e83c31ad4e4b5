export {
  APPLY_STEPS,
  type ApplyJournal,
  type ApplyStep,
  applyJournalSchema,
  type WorktreeRecord,
  worktreeRecordSchema,
} from './schema.js';
export {
  type SourceChange,
  type SourceCheckRequest,
  type SourceGuard,
  type SourceSnapshot,
  sourceSnapshotSchema,
} from './source-guard.js';
export type {
  ApplyRequest,
  ApplyResult,
  CleanOptions,
  CleanReport,
  DiskUse,
  ListOptions,
  RecoveredApply,
  SourceCheck,
  WorkspaceIsolation,
  WorktreeListing,
  WriteSetReport,
} from './types.js';
