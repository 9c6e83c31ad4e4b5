export {
  SESSION_STATES,
  type SessionOptions,
  type SessionPlan,
  type SessionStatus,
  type SessionYamlPlan,
  sessionOptionsSchema,
  sessionPlanSchema,
  sessionStatusSchema,
  sessionYamlPlanSchema,
} from './session-schema.js';
export { newSessionId, SESSIONS_DIR, SessionStore, type SessionView } from './session-store.js';
