export {
  SESSION_STATES,
  type SessionOptions,
  type SessionPlan,
  type SessionStatus,
  sessionOptionsSchema,
  sessionPlanSchema,
  sessionStatusSchema,
} from './session-schema.js';
export { newSessionId, SESSIONS_DIR, SessionStore, type SessionView } from './session-store.js';
