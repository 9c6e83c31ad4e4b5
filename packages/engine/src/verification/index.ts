export {
  type AddedLine,
  addedLinesBetween,
  addedLinesOfPatch,
  type ChangedFile,
} from './added-lines.js';
export { findStubs, isTestFile, type StubFinding } from './stub-detector.js';
export { readTestSummary, type TestSummary } from './test-summary.js';
