import { mkdirSync, mkdtempSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { bwrapSandboxSchema } from '@switchyard/config';
import { describe, expect, it } from 'vitest';
import { bwrapArgs } from './bwrap-argv.js';
import { planSandbox, type SandboxPlanInput } from './sandbox-plan.js';

/** A source repository with a worktree under its state folder, and a HOME, all under /tmp. */
function layout() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sy-sandbox-plan-')));
  const ws = join(root, 'ws');
  const state = join(ws, 'agent-task', '.switchyard');
  const worktree = join(state, 'worktrees', 'g', 't');
  const gitdir = join(ws, '.git', 'worktrees', 't');
  const attempt = join(state, 'attempts', 'a1');
  const task = join(ws, 'agent-task', 'g', 't');
  const home = join(root, 'home');
  for (const dir of [gitdir, worktree, attempt, task, join(home, '.ssh'), join(ws, 'src')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(worktree, '.git'), `gitdir: ${gitdir}\n`);
  writeFileSync(join(home, '.netrc'), 'machine x password y\n');
  writeFileSync(join(ws, 'src', 'a.txt'), 'a\n');
  const input: SandboxPlanInput = {
    config: bwrapSandboxSchema.parse({ mode: 'bwrap' }),
    command: '/usr/bin/bwrap',
    home,
    workspace: ws,
    stateDir: state,
    workdir: worktree,
    worktree: true,
    attemptDir: attempt,
    taskDir: task,
    agentPaths: [
      { path: '~/.agent', kind: 'dir' },
      { path: '~/.agent.json', kind: 'file' },
    ],
  };
  return { root, ws, state, worktree, gitdir, attempt, task, home, input };
}

/** The table as `type why path` lines, paths relative to the layout's root. */
const table = (root: string, mounts: { type: string; path: string; why: string }[]) =>
  mounts.map(
    (m) => `${m.type} ${m.why} ${m.path.startsWith(root) ? relative(root, m.path) : m.path}`,
  );

describe('planSandbox', () => {
  it('under a worktree: read-only but the worktree, attempt, task and agent folders; .git file read-only; credentials hidden; what /tmp hides bound back', () => {
    const l = layout();
    const spec = planSandbox(l.input);
    expect(table(l.root, spec.mounts)).toEqual([
      'ro-bind root /',
      'dev dev /dev',
      'proc proc /proc',
      'tmpfs tmp /tmp',
      'ro-bind visible ws',
      'ro-bind visible home',
      'bind agent home/.agent',
      'hide-dir hide home/.ssh',
      'hide-file hide home/.netrc',
      'bind task ws/agent-task/g/t',
      'bind attempt ws/agent-task/.switchyard/attempts/a1',
      'bind worktree ws/agent-task/.switchyard/worktrees/g/t',
      'ro-bind git ws/agent-task/.switchyard/worktrees/g/t/.git',
    ]);
    // the agent's folder was made for it (owner only); its missing file is left out
    expect(statSync(join(l.home, '.agent')).mode & 0o777).toBe(0o700);
    expect(spec).toMatchObject({ mode: 'bwrap', command: '/usr/bin/bwrap', network: 'host' });
  });

  it('a script named by the command under /tmp: the folder below /tmp that holds it is visible read-only (its imports too)', () => {
    const l = layout();
    const scripts = realpathSync(mkdtempSync(join(tmpdir(), 'sy-sandbox-script-')));
    mkdirSync(join(scripts, 'pkg', 'dist'), { recursive: true });
    writeFileSync(join(scripts, 'pkg', 'dist', 'agent.mjs'), '');
    // a shim that runs its neighbour (node_modules/.bin/node → ../node/bin/node)
    const tools = realpathSync(mkdtempSync(join(tmpdir(), 'sy-sandbox-tools-')));
    mkdirSync(join(tools, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(tools, 'node_modules', '.bin', 'node'), '');
    const spec = planSandbox({
      ...l.input,
      executable: join(tools, 'node_modules', '.bin', 'node'),
      arguments: [join(scripts, 'pkg', 'dist', 'agent.mjs'), '--flag', '/etc/hostname', '{prompt}'],
    });
    const visible = spec.mounts.filter((m) => m.why === 'visible').map((m) => m.path);
    expect(visible.sort()).toEqual([scripts, tools, l.ws, l.home].sort());
    expect(spec.mounts.find((m) => m.path === scripts)?.type).toBe('ro-bind');
  });

  it('under isolation "none": the write set files, the folders new ones are made in; with `any` the workspace, its .git and state folder read-only again', () => {
    const l = layout();
    const none = { ...l.input, workdir: l.ws, worktree: false, agentPaths: [] };
    const files = planSandbox({ ...none, writeSet: ['src/a.txt', 'lib/new/b.txt'] });
    expect(table(l.root, files.mounts).filter((m) => m.startsWith('bind'))).toEqual([
      'bind write-set ws/src/a.txt',
      'bind write-set ws/lib/new',
      'bind task ws/agent-task/g/t',
      'bind attempt ws/agent-task/.switchyard/attempts/a1',
    ]);
    expect(statSync(join(l.ws, 'lib', 'new')).isDirectory()).toBe(true);
    const any = planSandbox({ ...none, writeSet: 'any' });
    expect(table(l.root, any.mounts).slice(4)).toEqual([
      'ro-bind visible home',
      'bind workspace ws',
      'hide-dir hide home/.ssh',
      'hide-file hide home/.netrc',
      'ro-bind git ws/.git',
      'ro-bind state ws/agent-task/.switchyard',
      'bind task ws/agent-task/g/t',
      'bind attempt ws/agent-task/.switchyard/attempts/a1',
    ]);
  });

  it('the config: `writable` adds paths, `hide` replaces the default list, a hidden path wins over a writable one at the same place', () => {
    const l = layout();
    mkdirSync(join(l.home, 'cache'));
    const spec = planSandbox({
      ...l.input,
      agentPaths: [],
      config: bwrapSandboxSchema.parse({
        mode: 'bwrap',
        writable: ['~/cache', '~/.ssh', '~/missing'],
        hide: ['~/.ssh'],
        network: 'none',
      }),
    });
    const lines = table(l.root, spec.mounts);
    expect(lines).toContain('bind writable home/cache');
    expect(lines).toContain('hide-dir hide home/.ssh');
    expect(lines).not.toContain('bind writable home/.ssh');
    expect(lines).not.toContain('hide-file hide home/.netrc');
    expect(lines.some((m) => m.includes('missing'))).toBe(false);
    expect(spec.network).toBe('none');
  });
});

describe('the default hidden paths', () => {
  it("hide PostgreSQL's password file, where the store's login hint sends the password", () => {
    const l = layout();
    writeFileSync(join(l.home, '.pgpass'), 'db:5432:switchyard:sy:S3cret\n');
    const lines = table(l.root, planSandbox(l.input).mounts);
    expect(lines).toContain('hide-file hide home/.pgpass');
  });
});

describe('bwrapArgs', () => {
  it('new user/PID/IPC namespaces without capabilities, no --die-with-parent, the table in order, then the working folder', () => {
    const args = bwrapArgs(
      {
        mode: 'bwrap',
        command: '/usr/bin/bwrap',
        network: 'none',
        mounts: [
          { type: 'ro-bind', path: '/', why: 'root' },
          { type: 'tmpfs', path: '/tmp', why: 'tmp' },
          { type: 'bind', path: '/w', why: 'worktree' },
          { type: 'hide-dir', path: '/h/.ssh', why: 'hide' },
          { type: 'hide-file', path: '/h/.netrc', why: 'hide' },
        ],
      },
      '/w',
    );
    expect(args).toEqual([
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-net',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--tmpfs',
      '/tmp',
      '--bind',
      '/w',
      '/w',
      '--tmpfs',
      '/h/.ssh',
      '--remount-ro',
      '/h/.ssh',
      '--ro-bind',
      '/dev/null',
      '/h/.netrc',
      '--chdir',
      '/w',
      '--',
    ]);
    expect(args).not.toContain('--die-with-parent');
    expect(args).not.toContain('--new-session');
  });
});
