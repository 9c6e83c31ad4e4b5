export { findStubs, isTestFile, type StubFinding } from './stub-detector.js';
export { readTestSummary, type TestSummary } from './test-summary.js';
