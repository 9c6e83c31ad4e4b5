import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until, Workspace } from '../dispatcher/helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const SECRET = 'sk-live-4f9a2c7e1b8d6053aa91';

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

describe('secrets never sit in clear in a capture while the attempt runs', {
  timeout: 120_000,
}, () => {
  it('an agent printing its API key: stdout.raw, stream.log and the transcript hold only the mask while it still runs', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker' },
              steps: [
                { printEnv: 'SWITCHYARD_PROBE_API_KEY', stream: 'stdout' },
                { printEnv: 'SWITCHYARD_PROBE_API_KEY', stream: 'stderr' },
                { print: `PRINTED-THE-KEY ${'.'.repeat(200)}`, stream: 'stdout' },
                { print: `PRINTED-THE-KEY ${'.'.repeat(200)}`, stream: 'stderr' },
                { waitFor: '.release' },
                { fillChecklist: true },
              ],
            },
          ],
        },
      },
    });
    ws.task('g/t', { files: ['src/t.ts'] });
    const run = ws.run([], { env: { SWITCHYARD_PROBE_API_KEY: SECRET } });
    const attempts = ws.path('agent-task', '.switchyard', 'attempts');
    let dir = '';
    await until(() => {
      const started = ws.events().find((e) => e.type === 'attempt.started');
      dir = (started?.attemptDir as string | undefined) ?? '';
      return (
        dir !== '' && read(join(dir, 'normalized-output.log')).split('PRINTED-THE-KEY').length > 2
      );
    });
    expect(dir.startsWith(attempts)).toBe(true);
    // the agent is still running (it waits for .release): every capture is masked already
    for (const file of ['stdout.raw', 'stderr.raw', 'stream.log', 'normalized-output.log']) {
      const text = read(join(dir, file));
      expect(text, file).not.toContain(SECRET);
    }
    // masked in place, same length: `[redacted]` padded with `*` (the name does not fit)
    expect(read(join(dir, 'stdout.raw'))).toContain(
      `SWITCHYARD_PROBE_API_KEY=[redacted]${'*'.repeat(SECRET.length - 10)}\n`,
    );
    writeFileSync(ws.path('.release'), '');
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
  });
});
