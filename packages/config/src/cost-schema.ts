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

/** USD per million tokens, by kind; a missing cache price bills those tokens as input. */
export const tokenPriceSchema = z.strictObject({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cacheReadPerMTok: z.number().nonnegative().optional(),
  cacheWritePerMTok: z.number().nonnegative().optional(),
});

export type TokenPrice = z.infer<typeof tokenPriceSchema>;

/** Price table of the project config: catalog target id -> price. */
export const priceTableSchema = z.record(z.string(), tokenPriceSchema);

export type PriceTable = z.infer<typeof priceTableSchema>;
