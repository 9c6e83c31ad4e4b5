import { DEFAULT_ROUTING, routingSchema } from '@switchyard/catalog';
import { projectGateSchema } from '@switchyard/tasks';
import { z } from 'zod';
import { costBudgetSchema, priceTableSchema } from './cost-schema.js';
import { isolationConfigSchema } from './isolation-schema.js';
import { notifySchema } from './notify-schema.js';
import { sandboxSchema } from './sandbox-schema.js';
import { storeConfigSchema } from './store-setting.js';

const pluginEntry = z
  .union([z.string().min(1), z.tuple([z.string().min(1), z.record(z.string(), z.unknown())])])
  .describe('A plugin: package name or path, or [name, options].');

/** The project config (`switchyard.config.*`, `.switchyardrc*`, or `"switchyard"` in package.json). */
export const projectConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Optional JSON Schema reference for editors.'),
    executionCatalog: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .describe(
        'The execution catalog: a path relative to this config file, or the catalog inline. Overridden by --execution-catalog and AGENT_TASK_EXECUTION_CATALOG.',
      ),
    plugins: z.array(pluginEntry).default([]).describe('Plugins loaded after the built-in ones.'),
    retry: z
      .strictObject({
        baseDelayMs: z.number().int().min(0).default(2000).describe('First retry delay.'),
        maxDelayMs: z.number().int().min(0).default(300_000).describe('Longest retry delay.'),
      })
      .default({ baseDelayMs: 2000, maxDelayMs: 300_000 })
      .describe('Backoff between failed attempts of a task stage.'),
    park: z
      .strictObject({
        maxWaitSeconds: z
          .number()
          .int()
          .positive()
          .default(21_600)
          .describe(
            "Longest total wait of one stage for quota resets (consecutive parks); past it the stage blocks with every candidate's quota evidence.",
          ),
        maxParks: z
          .number()
          .int()
          .positive()
          .default(10)
          .describe(
            'Most consecutive parks of one stage (a move to a candidate whose reset passed counts too); past it the stage blocks.',
          ),
      })
      .default({ maxWaitSeconds: 21_600, maxParks: 10 })
      .describe(
        'When every candidate of a stage answers with a quota reset time, the stage waits for the first reset instead of failing: bounded here.',
      ),
    maxParallel: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe('Active task stages across the workspace; 0 = unlimited.'),
    maxApplyQueue: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Worktree isolation: approved tasks that may wait for the (one at a time) apply before no new task starts; 0 = unlimited. Default: the run's maxParallel.",
      ),
    stallTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(900_000)
      .describe('An attempt with no stream or session progress for this long is stalled.'),
    maxAttemptSeconds: z
      .number()
      .int()
      .positive()
      .default(7200)
      .describe(
        'An attempt running longer (even one that keeps printing) is ended with its whole process tree and retried on the same target; a target may set runtime.max_attempt_seconds.',
      ),
    evidence: z
      .strictObject({
        maxAttemptBytes: z
          .number()
          .int()
          .min(64 * 1024)
          .default(8 * 1024 * 1024)
          .describe(
            "Most bytes one attempt's captures (stdout.raw, stderr.raw, stream.log, transcript) keep together once it ended: the head and the tail, a marker saying how much was cut.",
          ),
      })
      .default({ maxAttemptBytes: 8 * 1024 * 1024 })
      .describe('Bounds of the evidence kept per attempt.'),
    prompts: z
      .record(z.string().min(1), z.string().min(1))
      .default({})
      .describe('Prompt template overrides: template name -> file path relative to this config.'),
    isolation: isolationConfigSchema.optional(),
    sandbox: sandboxSchema.default('none'),
    sandboxTargets: z
      .record(z.string().min(1), sandboxSchema)
      .default({})
      .describe(
        'The sandbox of particular catalog targets, by target id, over `sandbox` (e.g. { "local-llama": "none" }).',
      ),
    writeSet: z
      .enum(['correct', 'revert-outside'])
      .default('correct')
      .describe(
        'Changes outside a task\'s write set: "correct" = a correction to the worker naming them; "revert-outside" = also reset those files in its worktree.',
      ),
    corrections: z
      .strictObject({
        maxRepeats: z
          .number()
          .int()
          .min(0)
          .default(3)
          .describe(
            'The same correction (the same reason, or the same gate output) this many times in a row on one stage blocks the task as "the agent repeats itself" and escalates; 0 = only the failure budget of 10, which stays the ceiling.',
          ),
      })
      .default({ maxRepeats: 3 })
      .describe('How corrections sent back to the worker are bounded.'),
    prices: priceTableSchema
      .default({})
      .describe(
        'USD per million tokens by catalog target id ({inputPerMTok, outputPerMTok, cacheReadPerMTok?, cacheWritePerMTok?}): turns tokens an agent reports without a cost into an estimate marked as such.',
      ),
    notify: notifySchema.optional(),
    cost: costBudgetSchema
      .default({})
      .describe(
        'Cost budgets in USD ({maxPerTaskUsd?, maxPerRunUsd?}): when the cost the agents report (or the price table estimates) passes one, the stage stops and the task blocks with the figures.',
      ),
    gates: z
      .array(projectGateSchema)
      .default([])
      .superRefine((gates, ctx) => {
        const seen = new Set<string>();
        for (const [i, g] of gates.entries()) {
          if (seen.has(g.name))
            ctx.addIssue({
              code: 'custom',
              path: [i, 'name'],
              message: `duplicate gate name "${g.name}"`,
            });
          seen.add(g.name);
        }
      })
      .describe(
        'Project quality gates run after every task besides its own definition of done: [{name, command (argv), assertion (default "exit code 0"), on: "task" | "source" (default "task")}]. A failing gate goes back to the worker as a correction naming it.',
      ),
    review: z
      .strictObject({
        fixupTarget: z
          .string()
          .min(1)
          .optional()
          .describe(
            "A catalog target id: when the approving reviews leave only MINOR findings, this target applies them in the task's working tree (the fixup stage, no worker round) before the apply; the change is then checked again. Unset: MINOR findings stay accepted notes.",
          ),
      })
      .default({})
      .describe('How reviews are acted on.'),
    routing: routingSchema.default(DEFAULT_ROUTING),
    store: storeConfigSchema.optional(),
  })
  .describe('switchyard project config.');

/** The project config with defaults applied. */
export type ProjectConfig = z.output<typeof projectConfigSchema>;
/** The project config as written (defaults optional). */
export type ProjectConfigInput = z.input<typeof projectConfigSchema>;

/** Typed identity for `switchyard.config.ts` / `.mjs`: `export default defineConfig({...})`. */
export function defineConfig(config: ProjectConfigInput): ProjectConfigInput {
  return config;
}
