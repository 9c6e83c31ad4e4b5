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
