import { isRouteId } from '@switchyard/core/dry-run';
import { z } from 'zod';

const routeId = z
  .string()
  .refine(isRouteId, { message: 'not a route id (local-G01…local-G10, cloud-G01…cloud-G10)' });

/** Route groups of the bundled catalog: G01–G03 complex work, G04–G07 standard, G08–G10
 * routine (what `switchyard init` writes too). */
export const DEFAULT_COMPLEXITY_ROUTES = {
  routine: 'cloud-G08',
  standard: 'cloud-G04',
  complex: 'cloud-G01',
} as const;

/** Review modes a risk may ask for (`red-team`: an adversarial second review). */
export const REVIEW_MODES = ['standard', 'red-team'] as const;

const riskRule = z
  .strictObject({
    route: routeId.optional().describe('Route for work of this risk (wins over complexity).'),
    review: z.enum(REVIEW_MODES).optional().describe('Review mode for work of this risk.'),
  })
  .describe('What a risk level changes: its own route and/or the review mode.');

/** Defaults of `routing.risk`: high-risk work goes through a red-team review. */
export const DEFAULT_RISK_RULES = { low: {}, high: { review: 'red-team' } } as const;

/** `routing` in the project config: PLAN `complexity:` / `risk:` → route and review mode. */
export const routingSchema = z
  .strictObject({
    complexity: z
      .strictObject({
        routine: routeId.default(DEFAULT_COMPLEXITY_ROUTES.routine),
        standard: routeId.default(DEFAULT_COMPLEXITY_ROUTES.standard),
        complex: routeId.default(DEFAULT_COMPLEXITY_ROUTES.complex),
      })
      .default(DEFAULT_COMPLEXITY_ROUTES)
      .describe(
        'Route per `complexity:` (default routine cloud-G08, standard cloud-G04, complex cloud-G01).',
      ),
    risk: z
      .strictObject({
        low: riskRule.default(DEFAULT_RISK_RULES.low),
        high: riskRule.default(DEFAULT_RISK_RULES.high),
      })
      .default(DEFAULT_RISK_RULES)
      .describe('Per `risk:`: an optional route and review mode (default high → review red-team).'),
  })
  .describe(
    'Routing by the nature of the work: a PLAN may say `complexity:` and `risk:` instead of a `route:` (an explicit `route:` always wins).',
  );

export type RoutingConfig = z.output<typeof routingSchema>;
export type RoutingConfigInput = z.input<typeof routingSchema>;

/** The routing used when the project config has none. */
export const DEFAULT_ROUTING: RoutingConfig = routingSchema.parse({});
