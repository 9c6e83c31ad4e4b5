/** Which events a retrospective covers. */
export interface RetroScope {
  /** One run's id; default: the last run in the events. */
  runId?: string;
  /** Every run started at or after this instant (ISO 8601 or a date). */
  since?: string;
}

/** One task's figures. */
export interface RetroTask {
  task: string;
  outcome: 'archived' | 'blocked' | 'open';
  attempts: number;
  failovers: number;
  /** Failure class -> count, of failed attempts. */
  failureClasses: Record<string, number>;
  planLoops: number;
  findings: { critical: number; moderate: number; minor: number };
  reviewsRequestingChanges: number;
  gateFailures: number;
  durationMs: number;
  tokens: number;
  costUsd: number;
  /** On a shared store: attempts per machine (`<host> pid <pid>`) that ran them. */
  machines?: Record<string, number>;
}

/** One target's figures. */
export interface RetroTarget {
  target: string;
  attempts: number;
  succeeded: number;
  successRate: number;
  failureClasses: Record<string, number>;
  meanDurationMs: number;
  costUsd: number;
  /** Tasks archived in scope that this target worked on. */
  archivedTasks: number;
  /** Its cost divided by the archived tasks it worked on (undefined when none). */
  costPerArchivedTaskUsd?: number;
}

/** A suggestion derived from the figures, with the figures it rests on. */
export interface RetroSuggestion {
  text: string;
  figures: string;
}

/** A retrospective: built from persisted events only. */
export interface Retro {
  runs: string[];
  from?: string;
  to?: string;
  tasks: RetroTask[];
  targets: RetroTarget[];
  suggestions: RetroSuggestion[];
  totals: { attempts: number; archived: number; blocked: number; tokens: number; costUsd: number };
}
