export { type CostBudget, costBudgetSchema } from './budget.js';
export {
  type AttemptUsage,
  attemptUsageSchema,
  type PriceTable,
  priceTableSchema,
  type TokenPrice,
  tokenPriceSchema,
} from './usage.js';
