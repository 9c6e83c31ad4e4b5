// The helpers other packages use; each throws `SwitchyardError` (core's light errors entry).
export {
  ensureOwnedDir,
  openOwnedFile,
  unsafePathError,
  writeOwnedFile,
  writeOwnedFileBelow,
} from './owned-files.js';
export { processAgeMs } from './process-age.js';
export { readJsonFile } from './read-json-file.js';
