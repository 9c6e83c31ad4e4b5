/** One stored schedule: when and how `switchyard run` is started by the daemon. */
export interface Schedule {
  id: string;
  cron: string;
  /** IANA time zone the cron is read in; absent = the daemon's local time. */
  timezone?: string;
  /** Folder the run starts in. */
  workspace: string;
  /** Absolute path of the YAML plan, when the schedule runs a plan. */
  plan?: string;
  /** Extra `switchyard run` arguments. */
  runArgs: string[];
  createdAt: string;
}

/** What the daemon recorded about a schedule's runs. */
export interface ScheduleRuns {
  /** Time of the last fire that started a run. */
  lastFireAt?: string;
  lastExit?: number | null;
  lastEndedAt?: string;
  /** Fires that did not start a run: the previous run was still going, or the daemon was down. */
  missed: number;
  /** The most recent missed fire times (at most {@link MISSED_KEPT}). */
  missedAt: string[];
  /** When the daemon last accounted for this schedule (fires before this are not "missed"). */
  seenAt?: string;
}

/** How many missed fire times a schedule's record keeps. */
export const MISSED_KEPT = 20;

/**
 * `runs` as `putRuns` stores it over `old`: the last fire time never moves back (several daemons
 * write one schedule's record; a stale one must not let a time already fired be claimed again).
 */
export function keepingLastFire(old: ScheduleRuns | undefined, runs: ScheduleRuns): ScheduleRuns {
  const kept = old?.lastFireAt;
  if (kept === undefined) return runs;
  if (runs.lastFireAt !== undefined && Date.parse(runs.lastFireAt) >= Date.parse(kept)) return runs;
  return { ...runs, lastFireAt: kept };
}

/**
 * Schedules and the record of their runs. Every write is durable once it resolved.
 * `claimFire` makes a fire happen once however many daemons serve the store: it records the
 * fire time and returns true only when no fire at or after that time was recorded before;
 * `putRuns` never moves that time back ({@link keepingLastFire}).
 */
export interface SchedulePort {
  list(): Promise<Schedule[]>;
  /** Adds a schedule, or replaces the one with its id. */
  put(schedule: Schedule): Promise<void>;
  /** Removes a schedule (its run record stays); false when there was none. */
  remove(id: string): Promise<boolean>;
  runs(): Promise<Record<string, ScheduleRuns>>;
  putRuns(id: string, runs: ScheduleRuns): Promise<void>;
  claimFire(id: string, fireAt: string): Promise<boolean>;
  /** Where a human finds the schedules (a file, or a store URL). */
  locate(): string;
}
