import { execa } from 'execa';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.js';
import { version } from '../src/version.js';
import { asksOnlyVersion } from '../src/version-fast-path.js';
import { BIN } from './catalog-helpers.js';

// Reports every module the binary resolves whose URL names commander or a command module.
const WATCH_LOADS = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module';" +
    'registerHooks({ resolve(s, c, next) { const r = next(s, c);' +
    " if (/commander|program|commands/.test(r.url)) process.stderr.write('loaded ' + r.url + '\\n');" +
    ' return r; } });',
)}`;

describe('switchyard --version', () => {
  it('answers alone, without loading the command tree, the same line commander prints', async () => {
    const printed: string[] = [];
    const write = vi
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk: string | Uint8Array) => {
        printed.push(String(chunk));
        return true;
      });
    try {
      expect(await main(['--version'])).toBe(0);
    } finally {
      write.mockRestore();
    }
    expect(printed.join('')).toBe(`${version}\n`);
    for (const flag of ['--version', '-v']) {
      const fast = await execa(process.execPath, ['--import', WATCH_LOADS, BIN, flag], {
        stdin: 'ignore',
      });
      expect(fast.stdout).toBe(version);
      expect(fast.stderr).toBe('');
    }
    // With anything else on the line, the command tree parses it as before.
    const full = await execa(process.execPath, ['--import', WATCH_LOADS, BIN, '--version', 'x'], {
      reject: false,
      stdin: 'ignore',
    });
    expect(full.stderr).toContain('loaded');
    expect(asksOnlyVersion(['-v'])).toBe(true);
    expect(asksOnlyVersion(['--version', '--json'])).toBe(false);
    expect(asksOnlyVersion([])).toBe(false);
  });
});
