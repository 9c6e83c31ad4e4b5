export { RunControl } from '../dispatcher/run-control.js';
export {
  type Actor,
  HUMAN_ACTIONS,
  type HumanActionName,
  type HumanActionOutcome,
  type HumanActionRequest,
  humanActionRequestSchema,
} from './human-action.js';
export { performHumanAction } from './perform.js';
