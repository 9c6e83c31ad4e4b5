export { projectConfigJsonSchema } from './json-schema.js';
export {
  configFilesIn,
  hasConfigFile,
  loadProjectConfig,
  RECOMMENDED_CONFIG_FILE,
} from './load.js';
export type { NotifyConfig, NotifyEvent } from './notify-schema.js';
export { resolveCatalog } from './resolve-catalog.js';
export { defineConfig, type ProjectConfig, projectConfigSchema } from './schema.js';
