export {
  SESSION_STATES,
  type SessionMonitor,
  type SessionOptions,
  type SessionPlan,
  type SessionStatus,
  type SessionTask,
  type SessionYamlPlan,
  sessionMonitorSchema,
  sessionOptionsSchema,
  sessionPlanSchema,
  sessionStatusSchema,
  sessionYamlPlanSchema,
} from './session-schema.js';
export {
  MONITOR_FILE,
  newSessionId,
  SESSIONS_DIR,
  SessionStore,
  type SessionView,
} from './session-store.js';
