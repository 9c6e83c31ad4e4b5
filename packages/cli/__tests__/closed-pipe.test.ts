import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from './catalog-helpers.js';
import { makeWorkspace, plan, writeCatalog } from './dry-run-helpers.js';

/** Runs the CLI with its stdout a pipe whose reader is already gone (like `| head` that ended). */
function runIntoClosedPipe(args: string[], cwd: string) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Closed in the same tick as the spawn: before the CLI can write anything.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
}

describe('output to a closed pipe', { timeout: 60_000 }, () => {
  it('ends quietly with 141 in every kind of command, no EPIPE stack trace', async () => {
    const { root, ws, write } = makeWorkspace();
    write('src/a.ts', '');
    write('agent-task/g/t/PLAN.md', plan('cloud-G01', ['src/a.ts']));
    const { path: catalog } = writeCatalog(root);
    for (const args of [
      ['run', '--dry-run', '--json', '--execution-catalog', catalog],
      ['run', '--dry-run', '--execution-catalog', catalog],
      ['--help'],
      ['catalog', 'show', '--execution-catalog', catalog],
      ['status', '--json'],
    ]) {
      const { code, stderr } = await runIntoClosedPipe(args, ws);
      expect(stderr, args.join(' ')).toBe('');
      expect(code, args.join(' ')).toBe(141);
    }
  });
});
