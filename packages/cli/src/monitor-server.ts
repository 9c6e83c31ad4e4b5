// type-only: the monitor package loads only when a monitor is asked for
import type { RunControl } from '@switchyard/engine';
import type { EventFeed, MonitorOptions, MonitorServer } from '@switchyard/monitor';
import { InvalidArgumentError } from 'commander';

/** `--port`: a TCP port, 0 = any free one. */
export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535)
    throw new InvalidArgumentError('must be a port number 0-65535 (0 = any free port).');
  return Number(value);
}

/** Options shared by `run --monitor`, `demo --monitor` and `switchyard monitor`. */
export interface MonitorFlags {
  port?: number;
  host?: string;
  json?: boolean;
  /** The run of this process: the page's actions go through its dispatcher. */
  control?: RunControl | undefined;
  /** `--read-only`: the page shows, and refuses every action. */
  readOnly?: boolean;
  /** A shared store's event log, served live on `/log` (`monitor --store`). */
  eventFeed?: EventFeed;
  /** The shared store's task states, claims and escalations: the page shows every machine. */
  sharedFacts?: MonitorOptions['sharedFacts'];
  /** Fields added to the `--json` announcement (the shared store and its scope). */
  announce?: Record<string, string>;
}

/** Starts the browser monitor of a workspace (the caller announces its URL). */
export async function startMonitorServer(
  workspace: string,
  flags: MonitorFlags,
): Promise<MonitorServer> {
  const { startMonitor } = await import('@switchyard/monitor');
  return startMonitor({
    workspace,
    ...(flags.port !== undefined ? { port: flags.port } : {}),
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(flags.control ? { control: flags.control } : {}),
    ...(flags.readOnly ? { readOnly: true } : {}),
    ...(flags.eventFeed ? { eventFeed: flags.eventFeed } : {}),
    ...(flags.sharedFacts ? { sharedFacts: flags.sharedFacts } : {}),
  });
}

/**
 * Starts the browser monitor of a workspace and announces its URL: `monitor_url <url>` on
 * stdout, or with --json a first JSONL event `{"type":"monitor.started","monitor_url":…}`.
 * (A run announces its monitor in its `session.started` event instead.)
 */
export async function startAnnouncedMonitor(
  workspace: string,
  flags: MonitorFlags,
): Promise<MonitorServer> {
  const server = await startMonitorServer(workspace, flags);
  process.stdout.write(
    flags.json
      ? `${JSON.stringify({ type: 'monitor.started', at: new Date().toISOString(), monitor_url: server.url, ...flags.announce })}\n`
      : `monitor_url ${server.url}\n${flags.announce?.store ? `store       ${flags.announce.store}: every machine's events on /log\n` : ''}`,
  );
  return server;
}

export { untilInterrupted } from './until-interrupted.js';
