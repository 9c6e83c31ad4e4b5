import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A set-up command `init` proposes, and the lockfile it was chosen from. */
export interface ProposedSetup {
  lockfile: string;
  command: string[];
}

/**
 * What installs a project's dependencies from its lockfile, fast, into a new worktree: each
 * from the package manager's shared store or cache (pnpm's content-addressed store hard-links
 * its files; npm, yarn, bun, uv, poetry, cargo and go reuse their download caches), never
 * resolving anew (frozen/locked), so every task gets the dependencies the source has.
 * The first matching lockfile of each ecosystem counts.
 */
const LOCKFILES: readonly {
  ecosystem: string;
  lockfile: string;
  command: (dir: string) => string[];
}[] = [
  {
    ecosystem: 'js',
    lockfile: 'pnpm-lock.yaml',
    command: () => ['pnpm', 'install', '--frozen-lockfile', '--prefer-offline'],
  },
  { ecosystem: 'js', lockfile: 'bun.lock', command: () => ['bun', 'install', '--frozen-lockfile'] },
  {
    ecosystem: 'js',
    lockfile: 'bun.lockb',
    command: () => ['bun', 'install', '--frozen-lockfile'],
  },
  {
    ecosystem: 'js',
    lockfile: 'yarn.lock',
    // Yarn 2+ (a .yarnrc.yml) says --immutable; Yarn 1 --frozen-lockfile.
    command: (dir) =>
      existsSync(join(dir, '.yarnrc.yml'))
        ? ['yarn', 'install', '--immutable']
        : ['yarn', 'install', '--frozen-lockfile', '--prefer-offline'],
  },
  {
    ecosystem: 'js',
    lockfile: 'package-lock.json',
    command: () => ['npm', 'ci', '--prefer-offline', '--no-audit', '--no-fund'],
  },
  {
    ecosystem: 'js',
    lockfile: 'npm-shrinkwrap.json',
    command: () => ['npm', 'ci', '--prefer-offline', '--no-audit', '--no-fund'],
  },
  { ecosystem: 'python', lockfile: 'uv.lock', command: () => ['uv', 'sync', '--frozen'] },
  {
    ecosystem: 'python',
    lockfile: 'poetry.lock',
    command: () => ['poetry', 'install', '--no-interaction'],
  },
  { ecosystem: 'rust', lockfile: 'Cargo.lock', command: () => ['cargo', 'fetch', '--locked'] },
  { ecosystem: 'go', lockfile: 'go.sum', command: () => ['go', 'mod', 'download'] },
];

/** The set-up commands for the lockfiles found in `dir`, one per ecosystem, in a fixed order. */
export function proposeSetup(dir: string): ProposedSetup[] {
  const seen = new Set<string>();
  const proposed: ProposedSetup[] = [];
  for (const entry of LOCKFILES) {
    if (seen.has(entry.ecosystem) || !existsSync(join(dir, entry.lockfile))) continue;
    seen.add(entry.ecosystem);
    proposed.push({ lockfile: entry.lockfile, command: entry.command(dir) });
  }
  return proposed;
}
