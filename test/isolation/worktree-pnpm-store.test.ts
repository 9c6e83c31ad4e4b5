// The fast path the CLI README promises for pnpm: every task worktree's set-up
// (`pnpm install --frozen-lockfile --offline`) hard-links its dependencies from the one
// content-addressed store, with no download. The packages come from a registry of the test's
// own (a local HTTP server), which is shut before the run: the worktrees' installs can only
// come from the store.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../dispatcher/helpers.js';
import { git, gitWorkspace, sourceStatus, taskCommits } from './git-workspace.js';

const node = process.execPath;
const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

// The project's check (its definition of done): the dependency works, and where it was loaded
// from is recorded (folder, inode) in the file named by its argument.
const CHECK = `const fs = require('node:fs');
const file = fs.realpathSync(require.resolve('greet'));
console.log(require('greet')('world'));
fs.appendFileSync(process.argv[2], process.cwd() + '\\t' + fs.statSync(file).ino + '\\n');
`;

interface Packed {
  manifest: Record<string, unknown>;
  file: string;
  tarball: Buffer;
}

/** Two packages (greet depends on shout), packed as a registry serves them. */
function pack(dir: string): Map<string, Packed> {
  const defs = {
    shout: { index: 'module.exports = (s) => s.toUpperCase();\n', deps: {} },
    greet: {
      index: "module.exports = (w) => 'hello ' + require('shout')(w);\n",
      deps: { shout: '1.0.0' },
    },
  };
  const packed = new Map<string, Packed>();
  for (const [name, def] of Object.entries(defs)) {
    const src = join(dir, name);
    mkdirSync(src, { recursive: true });
    const manifest = { name, version: '1.0.0', main: 'index.js', dependencies: def.deps };
    writeFileSync(join(src, 'package.json'), JSON.stringify(manifest));
    writeFileSync(join(src, 'index.js'), def.index);
    const file = execFileSync('npm', ['pack', src, '--pack-destination', dir, '--silent'], {
      encoding: 'utf8',
    }).trim();
    packed.set(name, { manifest, file, tarball: readFileSync(join(dir, file)) });
  }
  return packed;
}

/** The registry's document of a package: its one version and where its tarball is. */
function packument(base: string, { manifest, file, tarball }: Packed): object {
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = createHash('sha1').update(tarball).digest('hex');
  const tarballUrl = `${base}/${String(manifest.name)}/-/${file}`;
  return {
    name: manifest.name,
    'dist-tags': { latest: manifest.version },
    versions: {
      [String(manifest.version)]: { ...manifest, dist: { tarball: tarballUrl, integrity, shasum } },
    },
  };
}

/** A registry of {@link pack}'s packages on a random local port, counting its requests. */
async function localRegistry(dir: string) {
  const packed = pack(dir);
  let requests = 0;
  let base = '';
  const server = createServer((req, res) => {
    requests += 1;
    const [, name, dash] = (req.url ?? '').split('/');
    const pkg = packed.get(decodeURIComponent(name ?? ''));
    if (!pkg) return res.writeHead(404).end();
    if (dash === '-') return res.writeHead(200).end(pkg.tarball);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(packument(base, pkg)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests: () => requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('worktree set-up from a shared pnpm store (real git, real pnpm, fake agents)', {
  timeout: 240_000,
}, () => {
  it('two worktrees install offline from the one store: the same files (hard links), no download, a clean source', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sy-pnpm-'));
    const registry = await localRegistry(join(scratch, 'packages'));
    // pnpm's store and the registry for every pnpm below (the user's setting, in effect).
    const env = {
      npm_config_store_dir: join(scratch, 'store'),
      npm_config_registry: `${registry.url}/`,
    };
    // Asynchronous: the registry answers from this very process.
    const pnpm = (ws: Workspace, ...args: string[]) =>
      promisify(execFile)('pnpm', args, { cwd: ws.dir, env: { ...process.env, ...env } });
    const ws = gitWorkspace({
      '.gitignore': 'agent-task/\n.catalog.json\n.scenario-*\nnode_modules/\n',
      'check.cjs': CHECK,
      'package.json': '{"name":"app","private":true,"dependencies":{"greet":"1.0.0"}}\n',
    });
    // The user's checkout: installed once from the registry, which fills the store.
    try {
      await pnpm(ws, 'install', '--no-frozen-lockfile');
    } finally {
      await registry.close();
    }
    const downloads = registry.requests();
    expect(downloads).toBeGreaterThan(0);
    git(ws.dir, 'add', '-A');
    git(ws.dir, 'commit', '-qm', 'app');
    const sourceFile = realpathSync(ws.path('node_modules/greet/index.js'));

    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      isolation: { setup: [['pnpm', 'install', '--frozen-lockfile', '--offline']] },
    });
    git(ws.dir, 'commit', '-qam', 'config');
    const seen = join(scratch, 'seen.tsv');
    const done = {
      command: `${node} check.cjs ${seen}`,
      assertion: 'stdout contains "hello WORLD"',
    };
    const writes = (path: string) => [{ write: { path, content: 'x\n' } }, { fillChecklist: true }];
    ws.catalog({
      t: {
        scenario: {
          cases: [approve, { when: { role: 'worker', task: 'g/b' }, steps: writes('src/b.js') }],
          steps: writes('src/a.js'),
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'], done });
    ws.task('g/b', { files: ['src/b.js'], done });
    const result = await ws.run(['--max-parallel', '2'], { env });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(
      taskCommits(ws)
        .map((c) => c.task)
        .filter(Boolean)
        .sort(),
    ).toEqual(['g/a', 'g/b']);

    // Each definition of done ran twice (in the task's worktree, then on the source): the two
    // worktrees loaded greet from their own node_modules, and every copy is the store's file.
    const rows = readFileSync(seen, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    const folders = new Set(rows.map(([cwd]) => cwd));
    expect(folders.size).toBe(3); // two worktrees and the source
    for (const cwd of folders)
      if (cwd !== realpathSync(ws.dir)) expect(cwd?.startsWith(ws.dir)).toBe(false);
    expect(new Set(rows.map(([, ino]) => Number(ino)))).toEqual(
      new Set([statSync(sourceFile).ino]),
    );
    // The set-ups needed no registry (it was shut: a download would have failed the install).
    const setups = ws
      .events()
      .filter((e) => e.type === 'task.isolation' && e.step === 'setup-passed');
    expect(setups.map((e) => e.task).sort()).toEqual(['g/a', 'g/b']);
    // The disk figure counts the linked files apart, as shared with the store.
    for (const id of ['g/a', 'g/b']) {
      const state = JSON.parse(ws.read(`agent-task/.switchyard/tasks/${id}.json`));
      expect(state.isolation.disk.sharedBytes).toBeGreaterThan(0);
    }
    expect(sourceStatus(ws)).toBe('');
  });
});
