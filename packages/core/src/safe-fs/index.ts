export {
  type BoundedRead,
  type BoundedReadOptions,
  DEFAULT_MAX_PLAN_BYTES,
  maxPlanBytes,
  readBoundedFile,
} from './bounded-read.js';
export {
  assertNoSymlinkBelow,
  ensureOwnedDir,
  OWNED_DIR_MODE,
  OWNED_FILE_MODE,
  type OwnedOpenMode,
  openOwnedFile,
  unsafePathError,
  writeOwnedFile,
  writeOwnedFileBelow,
} from './owned-files.js';
export { assertSafeOwnedPaths, findUnsafeOwnedPaths } from './owned-tree.js';
