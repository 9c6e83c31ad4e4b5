export {
  type BudgetBreach,
  type CostBudget,
  checkBudget,
  costBudgetSchema,
  type Spent,
} from './budget.js';
export { extractUsage } from './extract.js';
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
export {
  type AttemptUsageEntry,
  addUsage,
  describeUsage,
  emptyTotals,
  formatCost,
  summarizeUsage,
  totalsOf,
  type UsageSummary,
  type UsageTotals,
  usageLine,
} from './usage-totals.js';
