export { CONFIG_SEARCH_PLACES, type LoadedProjectConfig, loadProjectConfig } from './load.js';
export {
  defineConfig,
  type ProjectConfig,
  type ProjectConfigInput,
  projectConfigSchema,
} from './schema.js';
