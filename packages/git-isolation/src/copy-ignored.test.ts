import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openFsStore } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { openGitIsolation } from './git-isolation.js';
import { makeRepo, put, read, sh, status } from './test-repo.js';

describe('isolation.copy', () => {
  it('copies the ignored files it names into each new worktree, never a tracked or committable one', async () => {
    const root = makeRepo({
      '.gitignore': '.env\nconfig/local.*\n',
      'config/app.json': '{}\n',
      'app/.gitkeep': '',
    });
    put(root, '.env', 'TOKEN=local\n');
    put(root, 'config/local.json', '{"port":1}\n');
    put(root, 'config/local.yaml', 'port: 1\n');
    put(root, 'config/extra.json', 'untracked, not ignored\n');
    const isolation = await openGitIsolation(root, {
      store: openFsStore({ workspace: root }),
      copy: ['.env', 'config/local.*', 'config/*.json', 'missing.txt'],
    });
    const record = await isolation!.ensureWorktree('g/t');
    expect(record.copied).toEqual(['.env', 'config/local.json', 'config/local.yaml']);
    expect(record.copySkipped).toEqual([
      'config/app.json: not ignored by git (tracked, or it would be committed)',
      'config/extra.json: not ignored by git (tracked, or it would be committed)',
    ]);
    expect(read(record.workdir, '.env')).toBe('TOKEN=local\n');
    expect(existsSync(join(record.workdir, 'config/extra.json'))).toBe(false);
    // Copies are ignored in the worktree too: nothing for the task's diff or commit.
    expect(await isolation!.inspect('g/t', [])).toMatchObject({ empty: true, changed: [] });
    expect(status(record.path)).toBe('');
    // Once per worktree: a later call (another stage) does not copy over the task's edits.
    put(record.workdir, '.env', 'TOKEN=edited by the task\n');
    await isolation!.ensureWorktree('g/t');
    expect(read(record.workdir, '.env')).toBe('TOKEN=edited by the task\n');
    // A workspace in a subfolder copies its own files, workspace-relative.
    put(join(root, 'app'), '.env', 'APP=1\n');
    const sub = await openGitIsolation(join(root, 'app'), {
      store: openFsStore({ workspace: join(root, 'app') }),
      copy: ['.env'],
    });
    const inSub = await sub!.ensureWorktree('g/sub');
    expect(inSub.copied).toEqual(['.env']);
    expect(read(inSub.workdir, '.env')).toBe('APP=1\n');
    expect(sh(root, 'status', '--porcelain')).toBe('?? config/extra.json');
  });
});
