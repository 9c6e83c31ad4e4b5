import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../src/node-version.js';
import { BIN } from './catalog-helpers.js';

describe('the Node version check', () => {
  it('accepts 22.12 and newer, refuses older with what it needs and found', () => {
    expect(nodeVersionProblem('22.12.0')).toBeUndefined();
    expect(nodeVersionProblem('22.18.1')).toBeUndefined();
    expect(nodeVersionProblem('24.0.0')).toBeUndefined();
    expect(nodeVersionProblem('22.11.0')).toMatch(
      /needs Node 22\.12 or newer; this is Node 22\.11\.0/,
    );
    expect(nodeVersionProblem('20.20.2')).toMatch(/this is Node 20\.20\.2/);
  });

  it('the binary stops on an old Node before loading anything: exit 1, no stack trace', async () => {
    // A preload makes this Node report itself as 20.1.0 to the binary.
    const preload =
      "data:text/javascript,Object.defineProperty(process,'versions',{value:{...process.versions,node:'20.1.0'}})";
    const result = await execa(process.execPath, ['--import', preload, BIN, 'run', '--dry-run'], {
      reject: false,
      stdin: 'ignore',
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('switchyard needs Node 22.12 or newer; this is Node 20.1.0');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });
});
