import { readFileSync } from 'node:fs';
import { validateCatalog } from '@switchyard/catalog';
import { SwitchyardError } from '@switchyard/core';
import { assetPath } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { assertPreflights } from '../src/preflight/target-commands.js';
import { runCli } from './catalog-helpers.js';

describe('small messages', { timeout: 60_000 }, () => {
  it('an unknown time zone names the zone', () => {
    const catalog = JSON.parse(readFileSync(assetPath('default-execution-catalog.json'), 'utf8'));
    catalog.routes.worker['cloud-G05'].windows[0].timezone = 'Mars/Olympus';
    const { problems } = validateCatalog(catalog, { checkExecutables: false });
    expect(problems.map((p) => p.message)).toContain('"Mars/Olympus" is not an IANA time zone');
  });

  it('a preflight command that cannot start says so (not "exited undefined")', async () => {
    const target = {
      agent: 'fake',
      model: 'm',
      execution_class: 'cloud_model' as const,
      runtime: { command: ['/nonexistent/agent'], preflight_command: ['/nonexistent/agent'] },
    };
    const error = (await assertPreflights([['t', target as never]], { cwd: '/' }).catch(
      (e) => e,
    )) as SwitchyardError;
    expect(SwitchyardError.is(error)).toBe(true);
    const message = error.problems.map((p) => p.message).join('\n');
    expect(message).toContain('"/nonexistent/agent" could not be started');
    expect(message).not.toContain('undefined');
  });

  it('the classify example names the real attempts folder', async () => {
    const help = await runCli(['classify', '--help']);
    expect(help.stdout).toContain('switchyard classify agent-task/.switchyard/attempts/');
  });
});
