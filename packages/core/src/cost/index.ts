export {
  type BudgetBreach,
  type CostBudget,
  checkBudget,
  costBudgetSchema,
  type Spent,
} from './budget.js';
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
