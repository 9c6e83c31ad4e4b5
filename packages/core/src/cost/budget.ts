import { z } from 'zod';

/** Project config `cost`: spending caps in USD. */
export const costBudgetSchema = z.strictObject({
  maxPerTaskUsd: z
    .number()
    .positive()
    .optional()
    .describe('A task whose attempts cost more than this blocks.'),
  maxPerRunUsd: z
    .number()
    .positive()
    .optional()
    .describe(
      'Once the attempts of one run cost more than this, every task that would run on blocks.',
    ),
});

export type CostBudget = z.infer<typeof costBudgetSchema>;
