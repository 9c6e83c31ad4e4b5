import { SessionStore } from '@switchyard/core';

/** A YAML plan lane as the page shows it: its id, label and place among the plan's lanes. */
export interface PlanLane {
  id: string;
  label?: string;
  index: number;
}

interface ParsedPlan {
  planId?: unknown;
  lanes?: unknown;
  tasks?: unknown;
}

/**
 * The lane of every task a YAML plan placed in one (`<plan id>/<task id>` → lane), from the
 * plans the workspace's sessions ran (each session's plan.json keeps the plan as run; a later
 * session of the same plan wins). Sessions are read once each: their plan never changes.
 */
export class PlanLanes {
  private readonly store: SessionStore;
  private readonly bySession = new Map<string, Map<string, PlanLane>>();

  constructor(stateDir: string) {
    this.store = new SessionStore(stateDir);
  }

  /** Task id → lane, for every session so far. */
  read(): Map<string, PlanLane> {
    const lanes = new Map<string, PlanLane>();
    for (const id of this.store.ids()) {
      let found = this.bySession.get(id);
      if (!found) {
        found = this.lanesOf(id);
        this.bySession.set(id, found);
      }
      for (const [task, lane] of found) lanes.set(task, lane);
    }
    return lanes;
  }

  private lanesOf(id: string): Map<string, PlanLane> {
    const out = new Map<string, PlanLane>();
    let parsed: ParsedPlan | undefined;
    try {
      parsed = this.store.read(id).plan.yamlPlan?.parsed as ParsedPlan | undefined;
    } catch {
      return out; // an unreadable session only loses its lanes
    }
    if (!parsed || typeof parsed.planId !== 'string' || !Array.isArray(parsed.tasks)) return out;
    const declared = new Map<string, PlanLane>();
    (Array.isArray(parsed.lanes) ? parsed.lanes : []).forEach((lane: unknown, index) => {
      const { id: laneId, label } = (lane ?? {}) as { id?: unknown; label?: unknown };
      if (typeof laneId === 'string')
        declared.set(laneId, {
          id: laneId,
          index,
          ...(typeof label === 'string' ? { label } : {}),
        });
    });
    for (const task of parsed.tasks as unknown[]) {
      const { id: taskId, lane } = (task ?? {}) as { id?: unknown; lane?: unknown };
      if (typeof taskId !== 'string' || typeof lane !== 'string') continue;
      out.set(`${parsed.planId}/${taskId}`, declared.get(lane) ?? { id: lane, index: 0 });
    }
    return out;
  }
}
