import { DEFAULT_ROUTING, type RoutingConfig } from './routing-schema.js';

/** What routing decided for a task: the route, why, and the review mode a risk asks for. */
export interface TaskRouting {
  /** Undefined only when the plan names neither a route nor a complexity/risk. */
  route?: string;
  /** One line a human can check: `route: cloud-G03 in PLAN.md`, `complexity: complex →
   * cloud-G01 (routing.complexity.complex)`. */
  why: string;
  review?: string;
}

/** The fields of a loaded task (`@switchyard/tasks`) that routing reads and fills. */
export interface RoutableTask {
  route?: string;
  complexity?: 'routine' | 'standard' | 'complex';
  risk?: 'low' | 'high';
  review?: string;
  routeReason?: string;
}

type RoutedFields = Pick<RoutableTask, 'route' | 'complexity' | 'risk'>;

/**
 * Decides a task's route: an explicit `route:` wins; else a route the config gives the
 * task's `risk:`; else the route of its `complexity:` (`standard` when only a risk is given).
 * A risk's review mode (e.g. `red-team` for high risk) applies whichever way the route came.
 */
export function routeTask(
  task: RoutedFields,
  routing: RoutingConfig = DEFAULT_ROUTING,
): TaskRouting {
  const rule = task.risk ? routing.risk[task.risk] : undefined;
  const review = rule?.review;
  const reviewWhy =
    review && task.risk
      ? `; risk: ${task.risk} → review: ${review} (routing.risk.${task.risk}.review)`
      : '';
  const withReview = (r: Omit<TaskRouting, 'review'>): TaskRouting => ({
    ...r,
    why: r.why + reviewWhy,
    ...(review ? { review } : {}),
  });
  if (task.route) return withReview({ route: task.route, why: `route: ${task.route} in PLAN.md` });
  if (task.risk && rule?.route)
    return withReview({
      route: rule.route,
      why: `risk: ${task.risk} → ${rule.route} (routing.risk.${task.risk}.route)`,
    });
  if (task.complexity || task.risk) {
    const complexity = task.complexity ?? 'standard';
    const route = routing.complexity[complexity];
    const said = task.complexity ? `complexity: ${complexity}` : 'no complexity (standard)';
    return withReview({ route, why: `${said} → ${route} (routing.complexity.${complexity})` });
  }
  return { why: 'no route, complexity or risk in PLAN.md' };
}

/**
 * Fills a loaded task's route (when its plan gives a complexity/risk instead) and review mode
 * from the config's routing, and records why. A review option the plan set itself is kept.
 */
export function applyRouting(
  task: RoutableTask,
  routing: RoutingConfig = DEFAULT_ROUTING,
): TaskRouting {
  const routed = routeTask(task, routing);
  if (routed.route) task.route = routed.route;
  if (routed.review && task.review === undefined) task.review = routed.review;
  task.routeReason = routed.why;
  return routed;
}
