import { z } from 'zod';

/**
 * Tokens and dollars one attempt used, as its agent reported them (a plugin's `usage` hook
 * reads them from the agent's final event). Every field is optional: agents report
 * different subsets. `costUsd` is the agent's own figure; `costEstimated` marks a cost
 * computed from a price table instead.
 */
export const attemptUsageSchema = z.object({
  inputTokens: z.number().nonnegative().optional(),
  outputTokens: z.number().nonnegative().optional(),
  cacheReadTokens: z.number().nonnegative().optional(),
  cacheWriteTokens: z.number().nonnegative().optional(),
  /** Reported total when the agent gives only a total (or more than the parts). */
  totalTokens: z.number().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
  costEstimated: z.boolean().optional(),
});

export type AttemptUsage = z.infer<typeof attemptUsageSchema>;
