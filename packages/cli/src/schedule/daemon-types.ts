import type { SchedulePort } from '@switchyard/core';

/** One thing the daemon did, printed as a line (or JSON with --json). */
export interface DaemonEvent {
  type:
    | 'daemon.started'
    | 'daemon.reloaded'
    | 'daemon.stopping'
    | 'daemon.stopped'
    | 'schedule.fired'
    | 'schedule.exited'
    | 'schedule.skipped'
    | 'schedule.taken'
    | 'schedule.missed'
    | 'schedule.invalid';
  at: string;
  [key: string]: unknown;
}

export interface DaemonOptions {
  home: string;
  /** argv that starts the CLI: [node, bin.js]. */
  cli: [string, string];
  emit: (event: DaemonEvent) => void;
  /** Resolves when the daemon should stop (SIGTERM/SIGINT). */
  stop: Promise<void>;
  /**
   * Schedules shared by every daemon on a store (PostgreSQL): read and recorded there, and each
   * fire time claimed (`claimFire`) before a run starts, so it fires once across daemons.
   * Absent: this machine's `schedules.json` (one daemon per state folder).
   */
  shared?: SchedulePort;
  /** How often shared schedules are read again for changes (ms; default 1000). */
  pollMs?: number;
}
