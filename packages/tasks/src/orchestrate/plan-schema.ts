import { ROUTE_IDS } from '@switchyard/core';
import { z } from 'zod';
import { COMPLEXITIES, RISKS } from '../task/front-matter-keys.js';

/** The `kind` of a YAML plan this release reads. */
export const ORCHESTRATE_PLAN_KIND = 'orchestrate-plan';
/** The YAML plan format version this release reads. */
export const ORCHESTRATE_PLAN_VERSION = 1;
/** Runners a plan task may name: an agent through the catalog, or deterministic local commands. */
export const PLAN_RUNNERS = ['code-runner', 'local'] as const;
export type PlanRunner = (typeof PLAN_RUNNERS)[number];

/** A task or lane id: a string, or an integer read as its decimal string (`id: 1` = `id: "1"`). */
const idSchema = z
  .union([z.string().min(1), z.int().min(0)])
  .transform((v) => String(v))
  .describe('An id: a non-empty string (an integer is read as its decimal string).');

const routeIdSchema = z
  .enum(ROUTE_IDS as unknown as [string, ...string[]])
  .describe('A catalog route id: local-G01…local-G10, cloud-G01…cloud-G10.');

const doneSchema = z
  .strictObject({
    command: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe(
        'The command: a command line split like a shell splits words (no pipes, no expansion) or an argv list; run without a shell in the task workspace.',
      ),
    assertion: z
      .string()
      .min(1)
      .describe(
        'What the command must show: `exit code N`, `stdout contains "text"` or `stdout matches /re/`; any other text is kept as a note and the gate checks exit code 0.',
      ),
  })
  .describe('The definition of done: a command and what its result must show.');

/** One task of a YAML plan. */
export const planTaskSchema = z
  .strictObject({
    id: idSchema.describe('Task id, unique in the plan: the folder agent-task/<plan-id>/<id>/.'),
    title: z.string().min(1).describe('One-line task title (the PLAN.md heading).'),
    lane: idSchema.optional().describe('The lane (execution level) the task belongs to.'),
    runner: z
      .enum(PLAN_RUNNERS)
      .default('code-runner')
      .describe('"code-runner" (an agent through the catalog, the default) or "local" (command).'),
    backend: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A catalog target id, or an agent name (the route's first worker candidate served by that agent). Wins over `with <target>`.",
      ),
    route: routeIdSchema
      .optional()
      .describe(
        "The catalog route of the task (default: execution.route; else the config's routing for its complexity/risk; else cloud-G05).",
      ),
    complexity: z
      .enum(COMPLEXITIES)
      .optional()
      .describe(
        "routine, standard or complex: without `route`, the config's `routing.complexity` picks the route (PLAN.md `complexity:`).",
      ),
    risk: z
      .enum(RISKS)
      .optional()
      .describe(
        "low or high: the config's `routing.risk` may pick the route and the review mode (PLAN.md `risk:`).",
      ),
    mode: z.string().min(1).optional().describe('Informational (seed plans write "iterative").'),
    depends_on: z
      .array(idSchema)
      .default([])
      .describe('Ids of tasks of this plan that must be done first.'),
    implementation: z
      .array(z.string().min(1))
      .optional()
      .describe('What to do: one Implementation Checklist item each.'),
    definition_of_done: doneSchema.optional(),
    apply_to_source: z
      .boolean()
      .optional()
      .describe(
        'With commit_on_success and rollback_on_failure all true: the task lands a commit.',
      ),
    commit_on_success: z.boolean().optional(),
    rollback_on_failure: z.boolean().optional(),
    files: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('The write set: workspace-relative files the task may change (claims).'),
    command: z
      .array(z.string())
      .min(1)
      .optional()
      .describe('runner "local" only: the command as an argv list, run without a shell.'),
    shell: z
      .boolean()
      .optional()
      .describe('runner "local" only: run `command` through /bin/sh -c (must be explicit).'),
  })
  .describe('One task of the plan.');

/** An `orchestrate-plan` YAML document, version 1. */
export const orchestratePlanSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Optional JSON Schema reference for editors.'),
    version: z.literal(ORCHESTRATE_PLAN_VERSION).describe('Plan format version: 1.'),
    kind: z.literal(ORCHESTRATE_PLAN_KIND),
    metadata: z
      .strictObject({
        title: z.string().min(1).describe('Plan title.'),
        goal: z.string().optional().describe('One-line summary.'),
        id: z
          .string()
          .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/)
          .optional()
          .describe('Plan id: the task group agent-task/<id>/ (default: the file name stem).'),
      })
      .describe('Title and goal of the plan.'),
    execution: z
      .strictObject({
        max_concurrency: z
          .int()
          .min(0)
          .optional()
          .describe('Active task stages at once (like --max-parallel; 0 = unlimited).'),
        route: routeIdSchema.optional().describe('Default route of the tasks.'),
      })
      .optional(),
    lanes: z
      .array(
        z.strictObject({
          id: idSchema,
          label: z.string().optional(),
        }),
      )
      .optional()
      .describe('Execution levels in order: a lane starts after every task of earlier lanes.'),
    tasks: z.array(planTaskSchema).min(1).describe('The tasks.'),
  })
  .describe('switchyard YAML plan (orchestrate-plan, version 1).');

/** A validated plan (defaults applied, ids as strings). */
export type OrchestratePlan = z.output<typeof orchestratePlanSchema>;
/** A validated plan task. */
export type OrchestratePlanTask = z.output<typeof planTaskSchema>;

/** The JSON Schema of a YAML plan as written, generated from the zod schema. */
export function orchestratePlanJsonSchema(): Record<string, unknown> {
  return {
    title: 'switchyard YAML plan (orchestrate-plan)',
    ...z.toJSONSchema(orchestratePlanSchema, { io: 'input', unrepresentable: 'any' }),
  };
}
