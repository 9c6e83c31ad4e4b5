import type { AttemptLocator, Classification } from '@switchyard/core';
import { finalizeLocator } from './locator-writer.js';

/**
 * Records the classifier chain's verdict in an ended attempt's `locator.json`: result,
 * failure class, the exact evidence lines, the deciding classifier and `retryAfter`. The
 * write itself belongs to the locator writer ({@link finalizeLocator}).
 */
export function recordClassification(
  dir: string,
  verdict: Classification,
): Promise<AttemptLocator> {
  return finalizeLocator(dir, verdict);
}
