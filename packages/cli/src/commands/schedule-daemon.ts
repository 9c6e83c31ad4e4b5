import { realpathSync } from 'node:fs';
import {
  type DaemonEvent,
  openSharedSchedules,
  runDaemon,
  stateHome,
  systemdUserUnit,
} from '../schedule/index.js';
import { untilInterrupted } from '../until-interrupted.js';

/** `switchyard daemon`: run the stored schedules until SIGTERM/SIGINT, or print the systemd unit. */
export async function scheduleDaemon(opts: {
  printUnit?: boolean;
  json?: boolean;
  store?: string;
}): Promise<void> {
  const cli = cliArgv();
  if (opts.printUnit) {
    process.stdout.write(systemdUserUnit(cli));
    return;
  }
  const stop = untilInterrupted();
  const shared = await openSharedSchedules(opts.store);
  try {
    await runDaemon({
      home: stateHome(),
      cli,
      stop,
      ...(shared ? { shared: shared.port } : {}),
      emit: (event) => printEvent(event, opts.json === true),
    });
  } finally {
    await shared?.close();
  }
}

/** The [node, bin.js] pair that starts this CLI again (for children and the systemd unit). */
function cliArgv(): [string, string] {
  const bin = process.argv[1];
  if (!bin)
    throw new Error('cannot tell where the switchyard binary is (process.argv[1] is empty)');
  return [process.execPath, realpathSync(bin)];
}

/** One daemon event: a JSON line, or `<at> <type> key=value …`. */
function printEvent(event: DaemonEvent, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(event)}\n`);
    return;
  }
  const { type, at, ...rest } = event;
  const details = Object.entries(rest)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
    .join(' ');
  process.stdout.write(`${at} ${type} ${details}\n`);
}
