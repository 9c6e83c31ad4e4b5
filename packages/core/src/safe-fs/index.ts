export {
  type BoundedRead,
  type BoundedReadOptions,
  DEFAULT_MAX_PLAN_BYTES,
  maxPlanBytes,
  readBoundedFile,
} from './bounded-read.js';
export { assertSafeOwnedPaths, findUnsafeOwnedPaths } from './owned-tree.js';
