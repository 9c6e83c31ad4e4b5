export { type ProjectGateResult, projectGateResultSchema } from './gate-result.js';
