export {
  buildRetro,
  type Retro,
  type RetroScope,
  type RetroSuggestion,
  type RetroTarget,
  type RetroTask,
  runsInScope,
} from './build-retro.js';
export { renderRetro, writeRetroFile } from './render-retro.js';
