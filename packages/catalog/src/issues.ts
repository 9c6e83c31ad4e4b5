// The zod-issue conversion lives next to the error type: the project config uses it too, and
// importing it from here made `catalog` and `config` import each other.
export { dottedPath, issuesToProblems } from '@switchyard/utils';
