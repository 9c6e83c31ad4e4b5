import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';

/** `switchyard monitor`: refusals happen before anything listens (exit 2, a hint how to fix). */
describe('switchyard monitor', { timeout: 60_000 }, () => {
  const workspace = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-monitor-cli-'));
    mkdirSync(join(dir, 'agent-task'));
    return dir;
  };

  it('refuses a non-loopback --host', async () => {
    const r = await runCli(['monitor', '--workspace', workspace(), '--host', '0.0.0.0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('binds 127.0.0.1 only');
    expect(r.stdout).not.toContain('monitor_url');
  });

  it('refuses a bad --port and a port in use', async () => {
    const bad = await runCli(['monitor', '--workspace', workspace(), '--port', '70000']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('port number');
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await runCli(['monitor', '--workspace', workspace(), '--port', String(port)]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('the port is in use');
    } finally {
      taken.close();
    }
  });

  it('refuses a folder without agent-task/', async () => {
    const r = await runCli(['monitor', '--workspace', mkdtempSync(join(tmpdir(), 'sy-none-'))]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('has no agent-task/');
  });
});
