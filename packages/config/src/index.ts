export { projectConfigJsonSchema } from './json-schema.js';
export {
  CONFIG_SEARCH_PLACES,
  configFilesIn,
  findConfigFile,
  hasConfigFile,
  type LoadedProjectConfig,
  type LoadProjectConfigOptions,
  loadProjectConfig,
  RECOMMENDED_CONFIG_FILE,
} from './load.js';
export {
  NOTIFY_EVENTS,
  type NotifyConfig,
  type NotifyEvent,
  notifySchema,
} from './notify-schema.js';
export { resolveCatalog } from './resolve-catalog.js';
export {
  defineConfig,
  type ProjectConfig,
  type ProjectConfigInput,
  projectConfigSchema,
} from './schema.js';
