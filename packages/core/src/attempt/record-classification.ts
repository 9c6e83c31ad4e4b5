import type { Classification } from '../plugins/types.js';
import { type AttemptLocator, readLocator, writeLocator } from './locator.js';

/**
 * Records the classifier chain's verdict in an ended attempt's `locator.json`: result,
 * failure class, the exact evidence lines, the deciding classifier and `retryAfter`.
 */
export async function recordClassification(
  dir: string,
  verdict: Classification,
): Promise<AttemptLocator> {
  const locator = await readLocator(dir);
  const { retryAfter: _old, ...rest } = locator;
  return writeLocator(dir, {
    ...rest,
    result: verdict.class === 'success' ? 'success' : 'failure',
    failureClass: verdict.class,
    evidence: verdict.evidence,
    ...(verdict.classifier ? { classifier: verdict.classifier } : {}),
    ...(verdict.retryAfter ? { retryAfter: verdict.retryAfter } : {}),
  });
}
