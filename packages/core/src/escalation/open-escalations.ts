import type { TaskState } from '../state/state-schema.js';
import type { EscalationPort } from '../store/escalation-port.js';
import { type EscalationEntry, isOpen } from './escalation-store.js';

/** Every open escalation in a store (sorted by task), given the tasks' states. */
export async function openEscalations(
  port: EscalationPort,
  states: readonly TaskState[],
): Promise<EscalationEntry[]> {
  const byTask = new Map(states.map((s) => [s.task, s]));
  const out: EscalationEntry[] = [];
  for (const task of (await port.tasks()).sort()) {
    let stored: Awaited<ReturnType<EscalationPort['get']>>;
    try {
      stored = await port.get(task);
    } catch {
      continue; // a damaged bundle is not an escalation; the next run rewrites it
    }
    const bundle = stored?.bundle;
    if (!bundle || !isOpen(bundle, byTask.get(task))) continue;
    const where = port.locate(task);
    out.push({
      task,
      code: bundle.failure.code,
      ...(bundle.failure.class ? { class: bundle.failure.class } : {}),
      stage: bundle.failure.stage,
      reason: bundle.failure.reason,
      question: bundle.question,
      since: bundle.blockedAt,
      blockedDownstream: bundle.blockedDownstream,
      bundle: where.bundle,
      interview: where.interview,
    });
  }
  return out;
}
