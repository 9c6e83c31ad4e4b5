import { readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { fakeBinDir, runCli, tempDir } from './catalog-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

describe('switchyard catalog init knows Copilot', () => {
  it('derives a valid catalog from Copilot alone, with its resume command', async () => {
    const cwd = await tempDir();
    const PATH = await fakeBinDir(['copilot']);
    const r = await runCli(['catalog', 'init', '--json'], { cwd, env: { PATH } });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.kept).toEqual(['copilot-gpt-5']);
    const catalog = JSON.parse(await readFile(report.path, 'utf8'));
    const target = catalog.targets['copilot-gpt-5'];
    expect(target.agent).toBe('copilot');
    expect(target.runtime.output_format).toBe('jsonl');
    expect(target.runtime.resume_command).toContain('--resume={resume_session}');
    expect(catalog.routes.worker['cloud-G01'].candidates).toEqual(['copilot-gpt-5']);
  });
});
