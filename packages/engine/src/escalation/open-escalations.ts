import type { EscalationPort, TaskState } from '@switchyard/core';
import { type EscalationEntry, escalationEntry, isOpen } from '@switchyard/store-fs';

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
    out.push(escalationEntry(task, bundle, port.locate(task)));
  }
  return out;
}
