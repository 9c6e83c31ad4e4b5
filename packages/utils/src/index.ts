// The helpers other packages use; each throws `SwitchyardError` (core's light errors entry).
export { replaceFile, replaceFileSync } from './atomic-file.js';
export {
  ensureOwnedDir,
  openOwnedFile,
  unsafePathError,
  writeOwnedFile,
  writeOwnedFileBelow,
} from './owned-files.js';
export { processAgeMs } from './process-age.js';
export {
  findProcessesWithMarker,
  findProcessesWithMarkers,
  hasEnvironmentMarker,
  isSameProcessAlive,
  processIdentity,
  readStartToken,
  startTokenOf,
} from './process-identity.js';
export { readJsonFile } from './read-json-file.js';
