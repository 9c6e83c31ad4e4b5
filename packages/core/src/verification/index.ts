export { findStubs, isTestFile, type StubFinding } from './stubs.js';
export { readTestSummary, type TestSummary } from './test-summary.js';
