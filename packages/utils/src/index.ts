// The helpers other packages use; each throws `SwitchyardError` (core's light errors entry).
export { assetPath } from './assets.js';
export { replaceFile, replaceFileSync } from './atomic-file.js';
export { maxPlanBytes, readBoundedFile } from './bounded-read.js';
export { formatBytes, parseByteSize } from './byte-size.js';
export { type Clock, stopwatch, systemClock } from './clock.js';
export { type DeferredWrites, deferredWrites } from './deferred-writes.js';
export { closestName, didYouMean } from './did-you-mean.js';
export { encodeJsonChunks, Utf8ChunkWriter } from './json-chunks.js';
export { lazyRequire } from './lazy-require.js';
export {
  ensureOwnedDir,
  openOwnedFile,
  unsafePathError,
  writeOwnedFile,
  writeOwnedFileBelow,
} from './owned-files.js';
export { copyPlainData } from './plain-copy.js';
export { processAgeMs } from './process-age.js';
export {
  findProcessesWithMarker,
  findProcessesWithMarkersInTurns,
  hasEnvironmentMarker,
  isSameProcessAlive,
  processIdentity,
  readStartToken,
  startTokenOf,
} from './process-identity.js';
export { readJsonFile } from './read-json-file.js';
export { knownKeysAt } from './schema-keys.js';
export {
  credentialShape,
  expandEnvironmentValue,
  namesCredential,
  SECRET_HINT,
  secretInArgument,
  secretInEnvironment,
} from './secrets.js';
export { sharedPass } from './shared-pass.js';
export { shownSource } from './shown-value.js';
export { redactStoreUrl } from './store-url.js';
export { terminalSafe, terminalText } from './terminal-text.js';
export { findWorkspaceRoot, hasTasksDir, searchWorkspaceRoot } from './workspace-root.js';
export { dottedPath, issuesToProblems, unknownKeyHint } from './zod-problems.js';
