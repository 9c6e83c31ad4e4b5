import type { SessionPlan, SessionPort } from '@switchyard/core';

/** A YAML plan as the page heads its task group: title, goal and its lanes in order. */
export interface PlanInfo {
  title: string;
  goal?: string;
  /** The plan file as run. */
  file: string;
  /** Execution levels of the plan, in order, with their labels and tasks (`<group>/<task>`). */
  lanes: { id: string; label?: string; tasks: string[] }[];
}

/**
 * The YAML plans run in this workspace, by task group (a plan's id is its group): the newest
 * session of each plan wins. Read from the sessions' plans (written once per session); an
 * unreadable one is skipped (the group is then shown without a title).
 */
export async function readYamlPlans(sessions: SessionPort): Promise<Record<string, PlanInfo>> {
  let ids: string[];
  try {
    ids = (await sessions.ids()).sort();
  } catch {
    return {};
  }
  const found: Record<string, PlanInfo & { createdAt: string }> = {};
  for (const id of ids) {
    let plan: SessionPlan | undefined;
    try {
      plan = await sessions.getPlan(id);
    } catch {
      continue;
    }
    const parsed = plan?.yamlPlan?.parsed as ParsedPlan | undefined;
    if (!plan || !parsed?.planId || typeof parsed.title !== 'string') continue;
    const known = found[parsed.planId];
    if (known && known.createdAt > plan.createdAt) continue;
    found[parsed.planId] = {
      createdAt: plan.createdAt,
      title: parsed.title,
      ...(typeof parsed.goal === 'string' ? { goal: parsed.goal } : {}),
      file: plan.yamlPlan!.file,
      lanes: lanesOf(parsed),
    };
  }
  return Object.fromEntries(
    Object.entries(found).map(([group, { createdAt: _, ...info }]) => [group, info]),
  );
}

interface ParsedPlan {
  planId?: string;
  title?: unknown;
  goal?: unknown;
  lanes?: { id?: unknown; label?: unknown }[];
  tasks?: { id?: unknown; lane?: unknown }[];
}

/**
 * Lanes in the plan's declared order (with their labels), then any other lane in the order the
 * tasks first name it; tasks without a lane are left out, and so are lanes without tasks.
 */
function lanesOf(plan: ParsedPlan): PlanInfo['lanes'] {
  const lanes = new Map<string, PlanInfo['lanes'][number]>();
  for (const lane of Array.isArray(plan.lanes) ? plan.lanes : []) {
    if (typeof lane?.id !== 'string') continue;
    lanes.set(lane.id, {
      id: lane.id,
      ...(typeof lane.label === 'string' ? { label: lane.label } : {}),
      tasks: [],
    });
  }
  for (const task of plan.tasks ?? []) {
    if (typeof task.lane !== 'string' || typeof task.id !== 'string') continue;
    const lane = lanes.get(task.lane) ?? { id: task.lane, tasks: [] };
    lanes.set(task.lane, lane);
    lane.tasks.push(`${plan.planId}/${task.id}`);
  }
  return [...lanes.values()].filter((l) => l.tasks.length > 0);
}
