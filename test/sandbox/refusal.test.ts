// `sandbox: { mode: "bwrap" }` without a usable bubblewrap: `run` and `run --dry-run` stop
// before anything starts (exit 2, SY_SANDBOX_UNAVAILABLE), saying what was tried and the fix:
// bwrap missing from PATH, and a bwrap that cannot create its namespaces (as where user
// namespaces are disabled; a stand-in that fails the way bwrap does).
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';

describe('the sandbox refusal', { timeout: 60_000 }, () => {
  it('run and the dry run stop before anything starts when bwrap is missing or cannot start a sandbox', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [{ fillChecklist: true }] } } });
    ws.task('g/t', { files: ['src/t.txt'] });
    ws.config({ sandbox: { mode: 'bwrap' } });
    const empty = mkdtempSync(join(tmpdir(), 'sy-no-bwrap-'));

    const dry = await ws.run(['--dry-run'], { env: { PATH: empty } });
    expect(dry.code).toBe(2);
    expect(dry.stdout + dry.stderr).toContain('SY_SANDBOX_UNAVAILABLE');
    expect(dry.stdout + dry.stderr).toContain(`looked on PATH (${empty})`);
    expect(dry.stdout + dry.stderr).toContain('sudo apt-get install bubblewrap');

    const run = await ws.run([], { env: { PATH: empty } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SY_SANDBOX_UNAVAILABLE');
    expect(run.stderr).toContain('target a is to run sandboxed');
    expect(run.stderr).toContain('sudo apt-get install bubblewrap');

    // a bwrap that fails as it does where unprivileged user namespaces are off
    const broken = mkdtempSync(join(tmpdir(), 'sy-broken-bwrap-'));
    writeFileSync(
      join(broken, 'bwrap'),
      "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
    );
    chmodSync(join(broken, 'bwrap'), 0o755);
    const refused = await ws.run([], { env: { PATH: `${broken}:/usr/bin:/bin` } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`ran \`${join(broken, 'bwrap')} --unshare-user`);
    expect(refused.stderr).toContain('No permissions to creating new namespace');
    expect(refused.stderr).toContain('sysctl');

    // nothing started: no attempt, no event of one
    expect(ws.attempts()).toEqual([]);
    expect(ws.events().filter((e) => e.type === 'attempt.started')).toEqual([]);
  });
});
