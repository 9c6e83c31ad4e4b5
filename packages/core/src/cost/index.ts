export { type CostBudget, costBudgetSchema } from './budget.js';
export {
  type AttemptUsage,
  attemptUsageSchema,
  type PriceTable,
  priceTableSchema,
  priceUsage,
  type TokenPrice,
  tokenPriceSchema,
  tokensOf,
} from './usage.js';
