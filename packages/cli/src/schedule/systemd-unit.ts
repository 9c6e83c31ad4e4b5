/** A systemd user unit that keeps `switchyard daemon` running (see `switchyard daemon --help`). */
export function systemdUserUnit(
  cli: [string, string],
  env: NodeJS.ProcessEnv = process.env,
): string {
  const quote = (s: string) => (/[\s"\\]/.test(s) ? `"${s.replace(/(["\\])/g, '\\$1')}"` : s);
  // Agent CLIs are found on PATH: the unit keeps the PATH of the shell that printed it.
  const environment = ['PATH', 'SWITCHYARD_STATE_HOME', 'XDG_STATE_HOME']
    .filter((key) => env[key])
    .map((key) => `Environment=${quote(`${key}=${env[key]}`)}`);
  return [
    '[Unit]',
    'Description=switchyard scheduled runs (switchyard daemon)',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${cli.map(quote).join(' ')} daemon`,
    ...environment,
    'Restart=on-failure',
    'RestartSec=10',
    '# SIGTERM lets running runs stop cleanly (they record where they were).',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=120',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}
