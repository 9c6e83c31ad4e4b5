import type { RouteId, Stage } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core/errors';
import type { Catalog } from './schema.js';
import { windowMatches } from './windows.js';

/** The candidates of a route at one instant, and the window that supplied them. */
export interface Selection {
  /** Target ids in failover order. */
  candidates: string[];
  /** The active window, when the route uses windows. */
  window?: { index: number; timezone: string; start: string; end: string };
}

/**
 * The ordered candidates of `stage`/`routeId` at instant `at`. For a windowed route exactly
 * one window is active (validation proves it for the coming year); if none is — a catalog
 * validated long ago — this throws instead of guessing.
 */
export function selectCandidates(
  catalog: Catalog,
  stage: Stage,
  routeId: RouteId,
  at: Date,
): Selection {
  const route = catalog.routes[stage]?.[routeId];
  if (!route) {
    throw new SwitchyardError(
      'SY_CATALOG_INVALID',
      `The catalog has no route ${stage}.${routeId}.`,
      {
        path: `routes.${stage}.${routeId}`,
        hint: 'every stage must define local-G01..G10 and cloud-G01..G10',
      },
    );
  }
  if (route.candidates) return { candidates: [...route.candidates] };
  const windows = route.windows ?? [];
  const index = windows.findIndex((w) => windowMatches(w, at));
  const window = windows[index];
  if (!window) {
    throw new SwitchyardError(
      'SY_CATALOG_INVALID',
      `No window of route ${stage}.${routeId} is active at ${at.toISOString()}.`,
      {
        path: `routes.${stage}.${routeId}.windows`,
        hint: 'run `switchyard catalog validate` and fix the windows',
      },
    );
  }
  return {
    candidates: [...window.candidates],
    window: { index, timezone: window.timezone, start: window.start, end: window.end },
  };
}
