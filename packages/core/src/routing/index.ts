export { applyRouting, routeTask, type TaskRouting } from './route-task.js';
export {
  DEFAULT_COMPLEXITY_ROUTES,
  DEFAULT_RISK_RULES,
  DEFAULT_ROUTING,
  REVIEW_MODES,
  type RoutingConfig,
  type RoutingConfigInput,
  routingSchema,
} from './routing-schema.js';
