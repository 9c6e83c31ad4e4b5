import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGateCommand } from './gate-runner.js';

const dirs: string[] = [];
afterEach(() => {
  delete process.env.SWITCHYARD_STORE;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('runGateCommand', () => {
  it("hands a gate the dispatcher's environment without the store's URL, plus the request's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-gate-env-'));
    dirs.push(dir);
    process.env.SWITCHYARD_STORE = 'postgres://sy:S3cret@db.example/sy';
    // What a test an agent wrote could do: copy its environment where the agent reads it later.
    const seen = join(dir, 'seen.json');
    const result = await runGateCommand({
      argv: [
        process.execPath,
        '-e',
        'const e = process.env; require("fs").writeFileSync(process.argv[1], JSON.stringify({ store: e.SWITCHYARD_STORE ?? null, extra: e.GATE_EXTRA ?? null, path: Boolean(e.PATH) }))',
        seen,
      ],
      cwd: dir,
      env: { GATE_EXTRA: 'kept' },
      outputFile: join(dir, 'gate.log'),
    });
    expect(result.exitCode, result.tail.join('\n')).toBe(0);
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual({
      store: null,
      extra: 'kept',
      path: true,
    });
  });
});
