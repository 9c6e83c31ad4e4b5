export { gateResultLine, type ProjectGateResult, projectGateResultSchema } from './gate-result.js';
