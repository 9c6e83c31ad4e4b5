import { createHash } from 'node:crypto';
import type { Decision, DecisionStage } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core/dry-run';

/** The catalog facts a decision depends on. */
export interface CatalogFacts {
  /** Where the catalog came from, e.g. `bundled`, `flag:/path/catalog.json`. */
  source: string;
  /** SHA-256 revision of the resolved catalog. */
  revision: string;
  /** Catalog targets by id (the objects are snapshotted into the decision). */
  targets: Readonly<Record<string, unknown>>;
}

/** Input of {@link decideTarget}. */
export interface DecideInput {
  stage: DecisionStage;
  routeId: string;
  /** The task's PLAN front matter `target` pin. */
  pin?: string | undefined;
  /** The run's `--with TARGET`. */
  runWith?: string | undefined;
  /** The route's ordered candidates now (time windows already applied). */
  routeCandidates: readonly string[];
  catalog: CatalogFacts;
  now?: Date;
}

/**
 * The ordered candidates of a stage: an explicit target (pin or `--with`) first, then the
 * route's other candidates in route order, which stay available as failover.
 */
export function candidateOrder(
  explicit: string | undefined,
  routeCandidates: readonly string[],
): string[] {
  if (explicit === undefined) return [...routeCandidates];
  return [explicit, ...routeCandidates.filter((c) => c !== explicit)];
}

/**
 * Decides which target runs a stage: the task's pin, else the run's `--with`, else the first
 * candidate of the resolved route. A pin or `--with` is tried first; the route's other
 * candidates follow it as failover (`candidateOrder`).
 */
export function decideTarget(input: DecideInput): Decision {
  const explicit = input.pin ?? input.runWith;
  const source = input.pin ? 'pin' : input.runWith ? 'with' : 'route';
  const candidates = candidateOrder(explicit, input.routeCandidates);
  const target = candidates[0];
  if (target === undefined || !(target in input.catalog.targets)) {
    const what = explicit
      ? `${source === 'pin' ? 'The PLAN pins' : '--with names'} target "${explicit}", which the catalog does not define`
      : `Route ${input.routeId} has no candidate for stage ${input.stage} now`;
    throw new SwitchyardError('SY_CATALOG_INVALID', `${what}.`, {
      hint: `Known targets: ${Object.keys(input.catalog.targets).join(', ') || '(none)'}.`,
    });
  }
  return {
    stage: input.stage,
    target,
    source,
    routeId: input.routeId,
    catalogSource: input.catalog.source,
    catalogRevision: input.catalog.revision,
    targetSnapshot: input.catalog.targets[target],
    candidates,
    used: [target],
    decidedAt: (input.now ?? new Date()).toISOString(),
  };
}

/** Whether a persisted decision may still be used with the catalog resolved now. */
export type DecisionCheck =
  | { valid: true }
  | { valid: false; reason: string; oldRevision: string; newRevision: string };

/**
 * A persisted decision is valid only while the catalog revision and the selected target's
 * snapshot both match; anything else fails closed (the task blocks with both revisions until
 * `--retry-blocked` re-decides).
 */
export function checkDecision(decision: Decision, catalog: CatalogFacts): DecisionCheck {
  const current = catalog.targets[decision.target];
  const snapshotMatches =
    current !== undefined && snapshotHash(current) === snapshotHash(decision.targetSnapshot);
  if (decision.catalogRevision === catalog.revision && snapshotMatches) return { valid: true };
  const reason = snapshotMatches
    ? `the catalog changed (revision ${short(decision.catalogRevision)} -> ${short(catalog.revision)}) while the ${decision.stage} stage was decided on target ${decision.target}`
    : `target ${decision.target} of the ${decision.stage} decision ${current === undefined ? 'is gone from' : 'changed in'} the catalog (revision ${short(decision.catalogRevision)} -> ${short(catalog.revision)})`;
  return {
    valid: false,
    reason,
    oldRevision: decision.catalogRevision,
    newRevision: catalog.revision,
  };
}

/** Canonical SHA-256 of a JSON value (sorted keys), to compare target snapshots. */
export function snapshotHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const short = (revision: string) => revision.slice(0, 12);
