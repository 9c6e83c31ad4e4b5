export { buildRetro, runsInScope } from './build-retro.js';
export { renderRetro, writeRetroFile } from './render-retro.js';
export type { Retro, RetroScope, RetroSuggestion, RetroTarget, RetroTask } from './retro-types.js';
